@tool
extends Node
## Starts `companion serve` for the dock: the command set in Editor Settings >
## companion/daemon/command, else the one `companion plugin install` recorded in the
## companion's home (command.json: the absolute command of the companion that installed
## the addon, so a companion in a virtual environment off PATH is found), else
## `companion` on PATH. A start that fails says why at once: not found, or exited with
## its first line of error output (kept in the home's daemon-start.log).

## The started process ended before the daemon answered; why says what it printed.
signal failed(why: String)

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const RECORD := "command.json"

var pid := -1
var _watching := false


## The command and its arguments before "serve", and where they came from.
static func launch_command() -> Dictionary:
	var set_here := DaemonClient.command()
	if set_here != DaemonClient.DEFAULT_COMMAND:
		return {"argv": [set_here], "from": "Editor Settings > %s" % DaemonClient.COMMAND_SETTING}
	var path := DaemonClient.home_folder().path_join(RECORD)
	if FileAccess.file_exists(path):
		var parsed: Variant = JSON.parse_string(FileAccess.get_file_as_string(path))
		if typeof(parsed) == TYPE_DICTIONARY and typeof(parsed.get("command")) == TYPE_ARRAY \
				and not parsed["command"].is_empty():
			return {"argv": parsed["command"], "from": path}
	return {"argv": ["companion"], "from": "PATH"}


## The command as a user would type it.
static func shown() -> String:
	var argv: Array = launch_command()["argv"]
	return " ".join(argv.map(func(part: Variant) -> String:
		var text := String(part)
		return "\"%s\"" % text if text.contains(" ") else text))


## The program to run, found: an absolute path that exists, or a bare name on PATH; ""
## when there is none.
static func find_program(program: String) -> String:
	if program.is_absolute_path() or program.contains("/") or program.contains("\\"):
		return program if FileAccess.file_exists(program) else ""
	var windows := OS.get_name() == "Windows"
	var folders := OS.get_environment("PATH").split(";" if windows else ":", false)
	var endings := [".exe", ".cmd", ".bat", ""] if windows else [""]
	for folder in folders:
		for ending in endings:
			var candidate := String(folder).path_join(program + ending)
			if FileAccess.file_exists(candidate):
				return candidate
	return ""


## Starts the daemon; "" when it was started (then failed may follow), or why it could
## not be.
func start() -> String:
	stop_watching()
	var chosen := launch_command()
	var argv: Array = chosen["argv"]
	var program := find_program(String(argv[0]))
	if program == "":
		return "%s was not found (the command from %s)" % [String(argv[0]), chosen["from"]]
	var args := PackedStringArray(argv.slice(1).map(func(a: Variant) -> String: return String(a)))
	args.append("serve")
	if OS.get_name() == "Windows":
		pid = OS.create_process(program, args)
	else:
		# Its error output goes to a file (a pipe to the editor would break when the editor
		# closes, while the daemon runs on), whose first line says why it exited.
		DirAccess.make_dir_recursive_absolute(DaemonClient.home_folder())
		var shell := PackedStringArray(["-c", "exec \"$0\" \"$@\" 2>\"%s\"" % error_file(), program])
		shell.append_array(args)
		pid = OS.create_process("/bin/sh", shell)
	if pid < 0:
		return "%s could not be run" % program
	_watching = true
	return ""


## Where the started daemon's error output goes (in the companion's home).
static func error_file() -> String:
	return DaemonClient.home_folder().path_join("daemon-start.log")


func stop_watching() -> void:
	_watching = false


## A process that ended before the daemon answered is reported once, with the first line
## it printed (of a Python traceback, the last).
func _process(_delta: float) -> void:
	if not _watching or pid < 0 or OS.is_process_running(pid):
		return
	_watching = false
	var why := "exited"
	var lines := _error_lines()
	if not lines.is_empty():
		why += ": %s" % (lines[-1] if lines[0].begins_with("Traceback") else lines[0])
	failed.emit(why)


func _error_lines() -> PackedStringArray:
	if OS.get_name() == "Windows" or not FileAccess.file_exists(error_file()):
		return PackedStringArray()
	var text := FileAccess.get_file_as_string(error_file())
	var lines := PackedStringArray()
	for line in text.split("\n", false):
		if line.strip_edges() != "":
			lines.append(line.strip_edges())
	return lines
