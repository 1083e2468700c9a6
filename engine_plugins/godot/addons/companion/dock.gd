@tool
extends VBoxContainer
## The Animate dock: daemon status and balance, the request's settings, a quote before
## anything is spent, progress with Cancel, and the new SpriteFrames selected at the end.

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]
const OPTIONAL_FORMATS := ["godot_pack", "gif", "webm_alpha", "frames_zip"]
const POLL_SECONDS := 0.5
const SCAN_DEBOUNCE_SECONDS := 0.4
const FINAL_STATES := ["done", "failed", "cancelled"]

var client: Node
var image_path := ""
var job_id := ""
var quoted_credits := -1
var pending_resource := ""

var _status_label := Label.new()
var _image_label := Label.new()
var _prompt := TextEdit.new()
var _format_boxes := {}
var _width := SpinBox.new()
var _height := SpinBox.new()
var _fps := SpinBox.new()
var _seconds := SpinBox.new()
var _quote_button: Button
var _animate_button: Button
var _cancel_button: Button
var _approve_button: Button
var _progress := ProgressBar.new()
var _message := Label.new()
var _poll_timer := Timer.new()
var _scan_timer := Timer.new()


func _ready() -> void:
	name = "Animate"
	client = DaemonClient.new()
	add_child(client)
	_build()
	refresh()


func _build() -> void:
	var header := HBoxContainer.new()
	_status_label.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_status_label.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	header.add_child(_status_label)
	header.add_child(_button("Refresh", refresh))
	add_child(header)

	var image_row := HBoxContainer.new()
	_image_label.text = "No image chosen"
	_image_label.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_image_label.clip_text = true
	image_row.add_child(_image_label)
	image_row.add_child(_button("Use selected", use_selected_file))
	add_child(image_row)

	add_child(_caption("Prompt"))
	_prompt.custom_minimum_size = Vector2(0, 60)
	_prompt.placeholder_text = "idle breathing, loop"
	_prompt.wrap_mode = TextEdit.LINE_WRAPPING_BOUNDARY
	add_child(_prompt)

	add_child(_caption("Formats (spritesheet + JSON always)"))
	var formats := GridContainer.new()
	formats.columns = 2
	for format_name in OPTIONAL_FORMATS:
		var box := CheckBox.new()
		box.text = format_name
		box.button_pressed = format_name == "godot_pack"
		formats.add_child(box)
		_format_boxes[format_name] = box
	add_child(formats)

	var size_row := HBoxContainer.new()
	size_row.add_child(_caption("Size"))
	size_row.add_child(_spin(_width, 64, 2048, 256))
	size_row.add_child(_caption("x"))
	size_row.add_child(_spin(_height, 64, 2048, 256))
	add_child(size_row)
	var timing_row := HBoxContainer.new()
	timing_row.add_child(_caption("FPS"))
	timing_row.add_child(_spin(_fps, 1, 60, 12))
	timing_row.add_child(_caption("Seconds"))
	timing_row.add_child(_spin(_seconds, 1, 10, 2))
	add_child(timing_row)

	var actions := HBoxContainer.new()
	_quote_button = _button("Quote", quote)
	_animate_button = _button("Animate", animate)
	_animate_button.disabled = true
	_cancel_button = _button("Cancel", cancel)
	_cancel_button.disabled = true
	_approve_button = _button("Approve", approve)
	_approve_button.visible = false
	for button in [_quote_button, _animate_button, _cancel_button, _approve_button]:
		actions.add_child(button)
	add_child(actions)

	_progress.max_value = 1.0
	_progress.step = 0.001
	add_child(_progress)
	_message.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	add_child(_message)

	_poll_timer.wait_time = POLL_SECONDS
	_poll_timer.timeout.connect(_poll_job)
	add_child(_poll_timer)
	_scan_timer.one_shot = true
	_scan_timer.wait_time = SCAN_DEBOUNCE_SECONDS
	_scan_timer.timeout.connect(_scan_now)
	add_child(_scan_timer)


func _button(text: String, action: Callable) -> Button:
	var button := Button.new()
	button.text = text
	button.pressed.connect(action)
	return button


func _caption(text: String) -> Label:
	var label := Label.new()
	label.text = text
	return label


func _spin(spin: SpinBox, low: float, high: float, value: float) -> SpinBox:
	spin.min_value = low
	spin.max_value = high
	spin.value = value
	return spin


func _say(text: String) -> void:
	_message.text = text


## Shows whether the daemon runs, against what, and the balance.
func refresh() -> void:
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/status")
	if not reply["ok"]:
		_status_label.text = "Daemon: not running"
		_say(reply["message"])
		return
	var status: Dictionary = reply["data"]
	var mode := "Sandbox (no credits are spent)" if status.get("mode") == "sandbox" else "Live"
	var balance: Variant = status.get("balance")
	var credits := "?" if balance == null else str(int(balance))
	_status_label.text = "%s · balance %s credits" % [mode, credits]
	_say("")


func is_image(path: String) -> bool:
	return path.get_extension().to_lower() in IMAGE_EXTENSIONS


## The image the next request animates (a res:// path).
func set_image(path: String) -> void:
	if not is_image(path):
		_say("Choose a PNG, JPEG or WebP image.")
		return
	image_path = path
	_image_label.text = path.get_file()
	_image_label.tooltip_text = path
	quoted_credits = -1
	_animate_button.disabled = true
	_say("Press Quote to see the price.")


func use_selected_file() -> void:
	set_image(EditorInterface.get_current_path())


func project_root() -> String:
	return ProjectSettings.globalize_path("res://")


## A one-click animation takes a frame count over the video's duration, so the fps
## asked for becomes frames = fps x seconds.
func request_body() -> Dictionary:
	var formats := ["spritesheet", "spritesheet_json"]
	for format_name in OPTIONAL_FORMATS:
		if _format_boxes[format_name].button_pressed:
			formats.append(format_name)
	return {
		"project_root": project_root(),
		"image_path": image_path.trim_prefix("res://"),
		"prompt": _prompt.text.strip_edges(),
		"video": {"duration_seconds": _seconds.value},
		"export": {
			"frame_count": clampi(roundi(_fps.value * _seconds.value), 1, 240),
			"output_width": int(_width.value),
			"output_height": int(_height.value),
			"output_formats": formats,
		},
	}


## Registers this project with the daemon once; an existing registration is kept.
func ensure_project() -> bool:
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/projects")
	if not listed["ok"]:
		_say(listed["message"])
		return false
	var root := project_root().simplify_path()
	for project in listed["data"].get("data", []):
		if String(project.get("root", "")).simplify_path() == root:
			return true
	var body := {"root": project_root(), "engine": "godot", "target": "animations"}
	var added: Dictionary = await client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/projects", body
	)
	if not added["ok"]:
		_say(added["message"])
	return added["ok"]


## Asks what the request would cost; nothing is spent.
func quote() -> void:
	if image_path == "":
		_say("Choose an image first: right-click it in the FileSystem, or select it and "
			+ "press Use selected.")
		return
	if not await ensure_project():
		return
	var reply: Dictionary = await client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/quote", request_body()
	)
	if not reply["ok"]:
		_say(reply["message"])
		return
	quoted_credits = int(reply["data"].get("credits", 0))
	_animate_button.disabled = false
	_animate_button.text = "Animate (%d credits)" % quoted_credits
	_say("This will cost %d credits. Press Animate to go ahead." % quoted_credits)


## Starts the job the quote priced.
func animate() -> void:
	if quoted_credits < 0:
		await quote()
		return
	_animate_button.disabled = true
	var reply: Dictionary = await client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/animate", request_body()
	)
	if not reply["ok"]:
		_animate_button.disabled = false
		_say(reply["message"])
		return
	job_id = reply["data"]["id"]
	_progress.value = 0.0
	_cancel_button.disabled = false
	_say("Animating...")
	_poll_timer.start()


func cancel() -> void:
	if job_id == "":
		return
	var path := "/api/v1/jobs/%s/cancel" % job_id
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	_say("Cancelling..." if reply["ok"] else reply["message"])


func approve() -> void:
	if job_id == "":
		return
	var path := "/api/v1/jobs/%s/approve" % job_id
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	_approve_button.visible = not reply["ok"]
	_say("Approved; animating..." if reply["ok"] else reply["message"])


func _poll_job() -> void:
	if job_id == "":
		_poll_timer.stop()
		return
	var path := "/api/v1/jobs/%s" % job_id
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, path)
	if not reply["ok"]:
		_say(reply["message"])
		return
	var job: Dictionary = reply["data"]
	_progress.value = float(job.get("progress", 0.0))
	var state := String(job.get("state", ""))
	_approve_button.visible = state == "awaiting_approval"
	if state == "awaiting_approval":
		_say("This job is over your budget. Press Approve to spend the credits.")
	elif not (state in FINAL_STATES):
		_say("Animating... (%s)" % state)
	else:
		_finish(job)


func _finish(job: Dictionary) -> void:
	_poll_timer.stop()
	_cancel_button.disabled = true
	_animate_button.disabled = false
	var state := String(job.get("state", ""))
	if state == "done" and job.get("resource") != null:
		pending_resource = String(job["resource"])
		_say("Done: %s" % pending_resource)
		_scan_timer.start()
	elif state == "done":
		_say("Done; the files are in %s" % job.get("target_dir", "the target folder"))
		_scan_timer.start()
	else:
		_say("The job %s: %s" % [state, job.get("error", "")])
	job_id = ""
	refresh()


## One filesystem scan after the files landed, never while one is already running.
func _scan_now() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if filesystem.is_scanning():
		_scan_timer.start()
		return
	if not filesystem.filesystem_changed.is_connected(_select_result):
		filesystem.filesystem_changed.connect(_select_result, CONNECT_ONE_SHOT)
	filesystem.scan()


func _select_result() -> void:
	if pending_resource == "" or not ResourceLoader.exists(pending_resource):
		return
	EditorInterface.select_file(pending_resource)
	EditorInterface.edit_resource(load(pending_resource))
	pending_resource = ""
