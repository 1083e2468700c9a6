@tool
extends Node
## The daemon's event stream (GET /api/v1/events), held open while the daemon runs: the
## moment it closes (the daemon stopped, was killed, or its machine went to sleep) the
## dock hears of it, without asking; and each job's end is heard as it happens.

## The stream is open: the daemon answers.
signal opened
## The stream closed or could not be opened: the daemon is away.
signal lost
## A job changed (the daemon's job as JSON).
signal job_changed(job: Dictionary)

enum Stage { CLOSED, CONNECTING, ASKED, STREAMING }

const DaemonClient := preload("res://addons/companion/daemon_client.gd")

var stage := Stage.CLOSED
var _http: HTTPClient
var _token := ""
var _buffer := ""


func is_open() -> bool:
	return stage != Stage.CLOSED


## Opens the stream (nothing when it is open or opening already).
func open() -> void:
	if stage != Stage.CLOSED:
		return
	var daemon := DaemonClient.read_daemon_file()
	if daemon.is_empty():
		lost.emit()
		return
	_http = HTTPClient.new()
	_token = String(daemon["token"])
	_buffer = ""
	if _http.connect_to_host("127.0.0.1", int(daemon["port"])) != OK:
		_lose()
		return
	stage = Stage.CONNECTING


func close() -> void:
	if _http != null:
		_http.close()
	_http = null
	stage = Stage.CLOSED


func _exit_tree() -> void:
	close()


func _process(_delta: float) -> void:
	if _http == null:
		return
	_http.poll()
	var status := _http.get_status()
	match stage:
		Stage.CONNECTING:
			if status == HTTPClient.STATUS_CONNECTED:
				var headers := PackedStringArray([
					"Authorization: Bearer %s" % _token,
					"Accept: text/event-stream",
					"X-Companion-Plugin: godot %s" % DaemonClient.plugin_version(),
				])
				if _http.request(HTTPClient.METHOD_GET, "/api/v1/events", headers) != OK:
					_lose()
					return
				stage = Stage.ASKED
			elif status not in [HTTPClient.STATUS_RESOLVING, HTTPClient.STATUS_CONNECTING]:
				_lose()
		Stage.ASKED:
			if status == HTTPClient.STATUS_BODY and _http.get_response_code() == 200:
				stage = Stage.STREAMING
				opened.emit()
			elif status != HTTPClient.STATUS_REQUESTING:
				_lose()
		Stage.STREAMING:
			if status != HTTPClient.STATUS_BODY:
				_lose()  # the daemon ended the stream, or its end of the socket went
				return
			var chunk := _http.read_response_body_chunk()
			if not chunk.is_empty():
				_take(chunk.get_string_from_utf8())


func _lose() -> void:
	close()
	lost.emit()


## Server-sent events: blocks split by a blank line, "event:" and "data:" lines in each.
func _take(text: String) -> void:
	_buffer += text.replace("\r\n", "\n")
	while _buffer.contains("\n\n"):
		var block := _buffer.get_slice("\n\n", 0)
		_buffer = _buffer.substr(block.length() + 2)
		var event := ""
		var data := ""
		for line in block.split("\n"):
			if line.begins_with("event:"):
				event = line.substr(6).strip_edges()
			elif line.begins_with("data:"):
				data += line.substr(5).strip_edges()
		if event == "job":
			var job: Variant = JSON.parse_string(data)
			if typeof(job) == TYPE_DICTIONARY:
				job_changed.emit(job)
