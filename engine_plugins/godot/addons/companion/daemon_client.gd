@tool
extends Node
## Talks to the local companion daemon over loopback HTTP.
##
## The port and token come from daemon.json in the companion's home folder, which the
## daemon writes when it starts and removes when it stops. Each call uses its own
## HTTPRequest node (one request per node), so calls never queue behind each other.

const NOT_RUNNING := (
	"The companion daemon is not running. Press Start daemon, or start it in a "
	+ "terminal with:\n    companion serve\nThe dock connects by itself once it runs."
)
## The editor setting naming the companion command the dock starts the daemon with.
const COMMAND_SETTING := "companion/daemon/command"
const DEFAULT_COMMAND := "companion"
const TIMEOUT_SECONDS := 30.0


## The companion's home folder: COMPANION_HOME, or the platform's user data folder.
static func home_folder() -> String:
	var override := OS.get_environment("COMPANION_HOME")
	if override != "":
		return override
	match OS.get_name():
		"Windows":
			return OS.get_environment("LOCALAPPDATA").path_join("companion")
		"macOS":
			return OS.get_environment("HOME").path_join("Library/Application Support/companion")
		_:
			var data := OS.get_environment("XDG_DATA_HOME")
			if data == "":
				data = OS.get_environment("HOME").path_join(".local/share")
			return data.path_join("companion")


## {port, token} from daemon.json, or an empty dictionary when the daemon is not running.
static func read_daemon_file() -> Dictionary:
	var path := home_folder().path_join("daemon.json")
	if not FileAccess.file_exists(path):
		return {}
	var text := FileAccess.get_file_as_string(path)
	var parsed: Variant = JSON.parse_string(text)
	if typeof(parsed) != TYPE_DICTIONARY or not parsed.has("port") or not parsed.has("token"):
		return {}
	return parsed


## The companion command from the editor settings (a bare name is looked up on PATH).
static func command() -> String:
	var settings := EditorInterface.get_editor_settings()
	if settings.has_setting(COMMAND_SETTING):
		var value := String(settings.get_setting(COMMAND_SETTING)).strip_edges()
		if value != "":
			return value
	return DEFAULT_COMMAND


## Starts `companion serve` in its own process; its id, or -1 when it cannot start.
static func start_daemon() -> int:
	return OS.create_process(command(), PackedStringArray(["serve"]))


## This addon's version, from its plugin.cfg; sent with every request so the daemon knows
## which plugin it serves.
static func plugin_version() -> String:
	var cfg := ConfigFile.new()
	if cfg.load("res://addons/companion/plugin.cfg") != OK:
		return ""
	return str(cfg.get_value("plugin", "version", ""))


## Empty when the daemon and this addon are the same version; else the line that says so
## with the one command that fixes it.
static func version_note(daemon_version: String) -> String:
	var mine := plugin_version()
	if daemon_version == "" or daemon_version == mine:
		return ""
	var root := ProjectSettings.globalize_path("res://").trim_suffix("/")
	return "companion %s, this addon %s: run  companion plugin install godot \"%s\"" % [
		daemon_version, mine, root
	]


## Sends one request; resolves to {ok, status, data, message}.
## A refused connection or a missing daemon.json gives ok=false and the NOT_RUNNING text.
func call_api(method: int, path: String, body: Variant = null) -> Dictionary:
	var daemon := read_daemon_file()
	if daemon.is_empty():
		return {"ok": false, "status": 0, "data": {}, "message": NOT_RUNNING}
	var request := HTTPRequest.new()
	request.timeout = TIMEOUT_SECONDS
	add_child(request)
	var headers := PackedStringArray(
		[
			"Authorization: Bearer %s" % daemon["token"],
			"Accept: application/json",
			"X-Companion-Plugin: godot %s" % plugin_version(),
		]
	)
	var payload := ""
	if body != null:
		headers.append("Content-Type: application/json")
		payload = JSON.stringify(body)
	var url := "http://127.0.0.1:%d%s" % [int(daemon["port"]), path]
	var error := request.request(url, headers, method, payload)
	if error != OK:
		request.queue_free()
		return {"ok": false, "status": 0, "data": {}, "message": NOT_RUNNING}
	var reply: Array = await request.request_completed
	request.queue_free()
	return _reply(reply[0], reply[1], reply[3])


## Fetches a file the daemon serves (a contact sheet): {ok, status, body, message}.
func fetch_bytes(path: String) -> Dictionary:
	var daemon := read_daemon_file()
	if daemon.is_empty():
		return {"ok": false, "status": 0, "body": PackedByteArray(), "message": NOT_RUNNING}
	var request := HTTPRequest.new()
	request.timeout = TIMEOUT_SECONDS
	add_child(request)
	var headers := PackedStringArray(["Authorization: Bearer %s" % daemon["token"]])
	var url := "http://127.0.0.1:%d%s" % [int(daemon["port"]), path]
	if request.request(url, headers, HTTPClient.METHOD_GET) != OK:
		request.queue_free()
		return {"ok": false, "status": 0, "body": PackedByteArray(), "message": NOT_RUNNING}
	var reply: Array = await request.request_completed
	request.queue_free()
	var ok: bool = reply[0] == HTTPRequest.RESULT_SUCCESS and reply[1] < 400
	return {"ok": ok, "status": reply[1], "body": reply[3],
		"message": "" if ok else "the daemon did not send it (%s)" % reply[1]}


## Follows a job until it ends (done, failed or cancelled); its last state, or the
## reply that said why it could not be read.
func wait_job(job_id: String, seconds := 120.0) -> Dictionary:
	var deadline := Time.get_ticks_msec() + int(seconds * 1000)
	while Time.get_ticks_msec() < deadline:
		var reply: Dictionary = await call_api(HTTPClient.METHOD_GET, "/api/v1/jobs/%s" % job_id)
		if not reply["ok"]:
			return {"id": job_id, "state": "unknown", "error": reply["message"]}
		if String(reply["data"].get("state", "")) in ["done", "failed", "cancelled"]:
			return reply["data"]
		await get_tree().create_timer(0.25).timeout
	return {"id": job_id, "state": "unknown", "error": "still running after %d s" % int(seconds)}


func _reply(result: int, status: int, raw: PackedByteArray) -> Dictionary:
	if result != HTTPRequest.RESULT_SUCCESS:
		return {"ok": false, "status": 0, "data": {}, "message": NOT_RUNNING}
	var data: Variant = JSON.parse_string(raw.get_string_from_utf8())
	if typeof(data) != TYPE_DICTIONARY:
		data = {}
	var message := ""
	if status >= 400:
		var problem: Dictionary = data.get("error", {})
		message = "%s (%s)" % [problem.get("message", "request refused"), status]
	return {"ok": status < 400, "status": status, "data": data, "message": message}
