@tool
extends VBoxContainer
## The Animate dock: daemon status and balance, the request's settings, a quote before
## anything is spent, progress with Cancel, and the new SpriteFrames selected at the end.
## The limits of size, frames and seconds come from the daemon's status, never from here.

## Emitted once per job, when it reaches done, failed or cancelled.
signal finished(job: Dictionary)

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
## Filesystem scans this dock asked the editor for.
var scans := 0
## The most frames a one-click animation may have (status limits.frame_count.max).
var max_frames := 0
var _polling := false

var _status_label := Label.new()
var _image_label := Label.new()
var _prompt := TextEdit.new()
var _format_boxes := {}
var _width := SpinBox.new()
var _height := SpinBox.new()
var _fps := SpinBox.new()
var _seconds := SpinBox.new()
var _frames_label := Label.new()
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
	size_row.add_child(_spin(_width, 256))
	size_row.add_child(_caption("x"))
	size_row.add_child(_spin(_height, 256))
	add_child(size_row)
	var timing_row := HBoxContainer.new()
	timing_row.add_child(_caption("FPS"))
	timing_row.add_child(_spin(_fps, 12))
	timing_row.add_child(_caption("Seconds"))
	_seconds.step = 0.5
	timing_row.add_child(_spin(_seconds, 2))
	add_child(timing_row)
	_frames_label.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	add_child(_frames_label)
	_fps.value_changed.connect(_show_frames)
	_seconds.value_changed.connect(_show_frames)

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


## Until the daemon gives its limits, a box holds only its default value.
func _spin(spin: SpinBox, value: float) -> SpinBox:
	spin.min_value = value
	spin.max_value = value
	spin.value = value
	spin.editable = false
	return spin


func _limit(spin: SpinBox, low: Variant, high: Variant) -> void:
	var value := spin.value
	if low != null:
		spin.min_value = float(low)
	if high != null:
		spin.max_value = float(high)
	spin.value = clampf(value, spin.min_value, spin.max_value)
	spin.editable = true


## Sets every box from the daemon's limits (GET /api/v1/status, "limits").
func apply_limits(limits: Dictionary) -> void:
	var size: Dictionary = limits.get("size", {})
	_limit(_width, size.get("min"), size.get("max"))
	_limit(_height, size.get("min"), size.get("max"))
	_fps.min_value = 1
	_limit(_fps, null, limits.get("fps", {}).get("max"))
	var seconds: Dictionary = limits.get("seconds", {})
	# The minimum duration is exclusive: the shortest offered is one step above it.
	var shortest: Variant = seconds.get("min")
	_limit(_seconds, null if shortest == null else float(shortest) + _seconds.step,
		seconds.get("max"))
	max_frames = int(limits.get("frame_count", {}).get("max", 0))
	_show_frames()


## frames = fps x seconds, capped at the daemon's maximum; {frames, asked, fps}.
func frame_plan() -> Dictionary:
	var asked := maxi(1, roundi(_fps.value * _seconds.value))
	var frames := asked if max_frames <= 0 else mini(asked, max_frames)
	return {"frames": frames, "asked": asked, "fps": frames / _seconds.value}


## Empty when the frames asked for fit; otherwise what the cap does to the animation.
func frames_note() -> String:
	var plan := frame_plan()
	if plan["frames"] == plan["asked"]:
		return ""
	return "%d fps x %s s is %d frames, more than the %d the daemon allows: the animation " \
		% [int(_fps.value), str(_seconds.value), plan["asked"], plan["frames"]] \
		+ "gets %d frames and plays at %.1f fps." % [plan["frames"], plan["fps"]]


func _show_frames(_value: float = 0.0) -> void:
	var note := frames_note()
	_frames_label.text = note if note != "" else "%d frames" % frame_plan()["frames"]


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
	if status.get("reachable") == false:  # the daemon runs; the service does not answer
		_status_label.text = "%s · service not answering: work waits for it" % mode
	if typeof(status.get("limits")) == TYPE_DICTIONARY:
		apply_limits(status["limits"])
	if _message.text == DaemonClient.NOT_RUNNING:
		_say("")  # only the daemon's absence is over; a job's last word stays


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
			"frame_count": frame_plan()["frames"],
			"output_width": int(_width.value),
			"output_height": int(_height.value),
			"output_formats": formats,
		},
	}


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


## Registers this project with the daemon once. A registration found under any spelling
## of this folder is kept as it is; a new one sends only the root and the engine, so it
## never resets a target, inbox or defaults set elsewhere.
func ensure_project() -> bool:
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/projects")
	if not listed["ok"]:
		_say(listed["message"])
		return false
	for project in listed["data"].get("data", []):
		if same_folder(String(project.get("root", "")), project_root()):
			return true
	var body := {"root": project_root(), "engine": "godot"}
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
	var note := frames_note()
	_say("This will cost %d credits. Press Animate to go ahead.%s"
		% [quoted_credits, "" if note == "" else "\n" + note])


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


## One request at a time: a tick while the last is in flight does nothing, and a reply
## for a job that has meanwhile finished is dropped.
func _poll_job() -> void:
	if job_id == "":
		_poll_timer.stop()
		return
	if _polling:
		return
	_polling = true
	var polled := job_id
	var path := "/api/v1/jobs/%s" % polled
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, path)
	_polling = false
	if polled != job_id:
		return
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
	if job_id == "" or String(job.get("id", job_id)) != job_id:
		return
	job_id = ""
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
	finished.emit(job)
	refresh()


## One filesystem scan after the files landed, never while one is already running.
func _scan_now() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if filesystem.is_scanning():
		_scan_timer.start()
		return
	if pending_resource != "" and not filesystem.filesystem_changed.is_connected(_select_result):
		filesystem.filesystem_changed.connect(_select_result)
	scans += 1
	filesystem.scan()


## Selects the new resource once the editor's filesystem really lists it: a change
## signal that comes before (another scan, an import) leaves it waiting for the next.
func _select_result() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if pending_resource == "":
		filesystem.filesystem_changed.disconnect(_select_result)
		return
	if filesystem.get_file_type(pending_resource) == "" or filesystem.is_scanning():
		return
	filesystem.filesystem_changed.disconnect(_select_result)
	var resource := pending_resource
	pending_resource = ""
	EditorInterface.select_file(resource)
	EditorInterface.edit_resource(load(resource))
