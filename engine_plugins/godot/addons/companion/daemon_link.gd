@tool
extends Node
## The dock's line to the daemon: whether it answers (the status line, Start daemon, and
## a look every second while it is away, so the dock connects by itself), its event
## stream held open so the dock knows at once when it goes away, and this project's
## registration with it under any spelling of its folder.

## The daemon did not answer, and now it does (the dock refreshes itself then).
signal look_again
## The daemon went away (its event stream closed, or it did not answer).
signal went_away
## A job ended (its state is done, failed or cancelled): the balance is read again.
signal job_ended(job: Dictionary)

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const DaemonEvents := preload("res://addons/companion/daemon_events.gd")
const DaemonLaunch := preload("res://addons/companion/daemon_launch.gd")
## How long the dock keeps trying to connect after it started the daemon.
const START_WAIT_SECONDS := 30.0
const OFFLINE := "Offline: the companion daemon is not running"

var client: Node
var status_label: Label
var start_button: Button
var reconnect_timer: Timer
## The dock's message line: say.call(text), and heard.call() for what it shows.
var say: Callable
var heard: Callable
## The process id of a daemon being waited for (-1: none), and of the last started.
var started_pid := -1
var launched_pid := -1
## Whether the daemon answered last time the dock looked (or its stream is open).
var online := false
var events: Node
var launcher: Node
var _start_deadline := 0


func setup(dock_client: Node, label: Label, button: Button, timer: Timer) -> void:
	client = dock_client
	status_label = label
	start_button = button
	reconnect_timer = timer
	reconnect_timer.timeout.connect(_reconnect)
	events = DaemonEvents.new()
	add_child(events)
	events.lost.connect(_stream_lost)
	events.job_changed.connect(func(job: Dictionary) -> void:
		if String(job.get("state", "")) in ["done", "failed", "cancelled"]:
			job_ended.emit(job))
	launcher = DaemonLaunch.new()
	add_child(launcher)
	launcher.failed.connect(_start_failed)


## The daemon's status (GET /api/v1/status) shown on the status line, or {} when it does
## not answer: then the line says so, Start daemon shows, and it is looked for again.
func status() -> Dictionary:
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/status")
	if not reply["ok"]:
		_show_offline()
		if started_pid >= 0:
			say.call(starting_text())
		elif not _said_why():
			say.call(reply["message"])
		return {}
	online = true
	start_button.visible = false
	reconnect_timer.stop()
	started_pid = -1
	launcher.stop_watching()
	events.open()  # its closing tells the dock at once that the daemon went away
	var status: Dictionary = reply["data"]
	var mode := "Sandbox (no credits are spent)" if status.get("mode") == "sandbox" else "Live"
	var balance: Variant = status.get("balance")
	var credits := "?" if balance == null else str(int(balance))
	status_label.text = "%s · balance %s credits" % [mode, credits]
	if status.get("reachable") == false:  # the daemon runs; the service does not answer
		status_label.text = "%s · service not answering: work waits for it" % mode
	var note := DaemonClient.version_note(str(status.get("version", "")))
	if note != "":
		status_label.text += "\n" + note
	return status


## Offline: no balance (it would be stale), Start daemon shown, looked for every second.
func _show_offline() -> void:
	var was_online := online
	online = false
	status_label.text = OFFLINE
	start_button.visible = true
	if reconnect_timer.is_stopped():
		reconnect_timer.start()
	if was_online:
		went_away.emit()


## The event stream closed: the daemon stopped or was killed. Said at once, no Refresh.
func _stream_lost() -> void:
	if not online:
		return
	_show_offline()
	if not _said_why():
		say.call(DaemonClient.NOT_RUNNING)


func _said_why() -> bool:
	var shown := String(heard.call())
	return shown.begins_with("The daemon did not answer") or shown.begins_with("Could not start")


## Starts the daemon with the command from the editor settings, or the one `companion
## plugin install` recorded; the reconnect timer then finds it as soon as it answers. A
## start that cannot happen, or a daemon that exits at once, is said within 2 s.
func start_daemon() -> void:
	var refused: String = launcher.start()
	if refused != "":
		started_pid = -1
		say.call("Could not start the daemon: %s. Set the companion command in Editor "
			% refused + "Settings > %s (see docs/plugins.md)." % DaemonClient.COMMAND_SETTING)
		return
	started_pid = launcher.pid
	launched_pid = started_pid
	_start_deadline = Time.get_ticks_msec() + int(START_WAIT_SECONDS * 1000)
	say.call(starting_text())
	reconnect_timer.start()


func _start_failed(why: String) -> void:
	if started_pid < 0:
		return
	started_pid = -1
	say.call("Could not start the daemon: %s serve %s. Set the companion command in " % [
		DaemonLaunch.shown(), why] + "Editor Settings > %s (see docs/plugins.md)."
		% DaemonClient.COMMAND_SETTING)


func starting_text() -> String:
	return "Starting the daemon (%s serve)..." % DaemonLaunch.shown()


## While the daemon is away the dock looks for it every second, so it connects by itself
## once it runs (started here or in a terminal).
func _reconnect() -> void:
	if started_pid >= 0 and Time.get_ticks_msec() > _start_deadline:
		started_pid = -1
		say.call("The daemon did not answer after %d s: run \"%s serve\" in a terminal to "
			% [int(START_WAIT_SECONDS), DaemonLaunch.shown()] + "see why.")
	look_again.emit()


## The folder a path names with every link followed, so two spellings of one folder
## (a linked folder, /tmp and /private/tmp on macOS) compare equal.
static func real_path(path: String) -> String:
	var parts := path.simplify_path().split("/")
	var done := parts[0]  # "" for "/", or a drive such as "C:"
	var hops := 0
	var i := 1
	while i < parts.size():
		if parts[i] == "":
			i += 1
			continue
		var folder := DirAccess.open(done + "/")
		if folder != null and folder.is_link(parts[i]) and hops < 40:
			hops += 1
			var link := folder.read_link(parts[i])
			var rest := "/".join(parts.slice(i + 1))
			var joined := link if link.is_absolute_path() else (done + "/" + link)
			parts = (joined.path_join(rest) if rest != "" else joined).simplify_path().split("/")
			done = parts[0]
			i = 1
			continue
		done += "/" + parts[i]
		i += 1
	return done if done != "" else "/"


## Whether two paths name the same folder (case-insensitively on Windows).
static func same_folder(a: String, b: String) -> bool:
	var left := real_path(a)
	var right := real_path(b)
	if OS.get_name() == "Windows":
		return left.to_lower() == right.to_lower()
	return left == right


## Registers the project at root with the daemon once. A registration found under any
## spelling of this folder is kept as it is; a new one sends only the root and the
## engine, so it never resets a target, inbox or defaults set elsewhere.
func ensure_project(root: String) -> bool:
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/projects")
	if not listed["ok"]:
		say.call(listed["message"])
		return false
	for project in listed["data"].get("data", []):
		if same_folder(String(project.get("root", "")), root):
			return true
	var body := {"root": root, "engine": "godot"}
	var added: Dictionary = await client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/projects", body
	)
	if not added["ok"]:
		say.call(added["message"])
	return added["ok"]
