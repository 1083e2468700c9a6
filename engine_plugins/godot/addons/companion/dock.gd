@tool
extends HBoxContainer
## The Animate dock (dock.tscn): daemon status and balance, the request's settings, a
## quote bound to exactly what it priced, progress with Cancel, the chosen picture and the
## latest result playing. The limits of size, frames and seconds come from the daemon.

## Emitted once per job, when it reaches done, failed or cancelled.
signal finished(job: Dictionary)
## Emitted each time the daemon answers after it did not (and on the first answer).
signal connected
## Emitted when the daemon stops answering after it did.
signal disconnected

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const PixelArt := preload("res://addons/companion/pixel_art.gd")
const FrameLimits := preload("res://addons/companion/frame_limits.gd")
const DaemonLink := preload("res://addons/companion/daemon_link.gd")
const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]
const OPTIONAL_FORMATS := ["godot_pack", "gif", "webm_alpha", "frames_zip"]
const FINAL_STATES := ["done", "failed", "cancelled"]

var client: Node
var image_path := ""
var job_id := ""
## The price of the quoted request, or -1 when there is no quote for what is shown.
var quoted_credits := -1
## The daemon's id for that quote (sent with Animate) and the request it priced.
var quote_id := ""
var quoted_body := ""
## The user's changed files the quote said the install would replace, and whether the
## user agreed (then Animate sends "replace": true and the daemon moves them aside).
var conflicts: Array = []
var replace_agreed := false
## The export of the job running (for its pixel-art cut once it is done).
var sent_export := {}
var pending_resource := ""
## Filesystem scans this dock asked the editor for.
var scans := 0
## The most frames a one-click animation may have (status limits.frame_count.max).
var max_frames: int:
	get:
		return _limits.max_frames
## The process id of the daemon the dock last started (-1: none).
var launched_pid: int:
	get:
		return _link.launched_pid
var _polling := false
var _format_boxes := {}
var _limits: RefCounted
var _link: Node

@onready var _status_label: Label = %StatusLabel
@onready var _start_button: Button = %StartButton
@onready var _image_label: Label = %ImageLabel
@onready var _image_preview: TextureRect = %ImagePreview
@onready var _prompt: TextEdit = %Prompt
@onready var _width: SpinBox = %Width
@onready var _height: SpinBox = %Height
@onready var _fps: SpinBox = %Fps
@onready var _seconds: SpinBox = %Seconds
@onready var _frames_label: Label = %FramesLabel
@onready var _pixel_art: CheckBox = %PixelArt
@onready var _quote_button: Button = %QuoteButton
@onready var _animate_button: Button = %AnimateButton
@onready var _cancel_button: Button = %CancelButton
@onready var _approve_button: Button = %ApproveButton
@onready var _progress: ProgressBar = %Progress
@onready var _message: Label = %Message
@onready var _result_caption: Label = %ResultCaption
@onready var _result_player: TextureRect = %ResultPlayer
@onready var _poll_timer: Timer = %PollTimer
@onready var _scan_timer: Timer = %ScanTimer
@onready var _reconnect_timer: Timer = %ReconnectTimer
@onready var _advanced: VBoxContainer = %Advanced
@onready var _confirm_replace: ConfirmationDialog = %ConfirmReplace


func _ready() -> void:
	client = DaemonClient.new()
	add_child(client)
	_link = DaemonLink.new()
	add_child(_link)
	_link.setup(client, _status_label, _start_button, _reconnect_timer)
	_link.say = _say
	_link.heard = func() -> String: return _message.text
	_link.look_again.connect(refresh)
	_limits = FrameLimits.new(_width, _height, _fps, _seconds)
	_wire()
	refresh()


func _wire() -> void:
	%RefreshButton.pressed.connect(refresh)
	%UseSelectedButton.pressed.connect(use_selected_file)
	_start_button.pressed.connect(_link.start_daemon)
	_quote_button.pressed.connect(quote)
	_animate_button.pressed.connect(animate)
	_cancel_button.pressed.connect(cancel)
	_approve_button.pressed.connect(approve)
	for format_name in OPTIONAL_FORMATS:
		var box := CheckBox.new()
		box.text = format_name
		box.button_pressed = format_name == "godot_pack"
		box.toggled.connect(_changed)
		%Formats.add_child(box)
		_format_boxes[format_name] = box
	for spin in [_width, _height, _fps, _seconds]:
		spin.value_changed.connect(_changed)
	_fps.value_changed.connect(_show_frames)
	_seconds.value_changed.connect(_show_frames)
	_prompt.text_changed.connect(_changed)
	_poll_timer.timeout.connect(_poll_job)
	_scan_timer.timeout.connect(_scan_now)
	%AdvancedToggle.toggled.connect(func(on: bool) -> void: _advanced.visible = on)
	_advanced.changed.connect(_changed)
	_advanced.durations_changed.connect(_model_durations)
	_confirm_replace.confirmed.connect(_agree_replace)
	_confirm_replace.canceled.connect(_refuse_replace)


## Any change of what would be sent drops the quote: the price shown is always the
## price of exactly this request.
func _changed(_value: Variant = null) -> void:
	if quoted_credits < 0 and quote_id == "":
		return
	drop_quote()
	if job_id == "":
		_say("The settings changed: press Quote for the new price.")


func drop_quote() -> void:
	quoted_credits = -1
	quote_id = ""
	quoted_body = ""
	conflicts = []
	replace_agreed = false
	_animate_button.disabled = true
	_animate_button.text = "Animate"


## Sets every box from the daemon's limits (GET /api/v1/status, "limits").
func apply_limits(limits: Dictionary) -> void:
	var model: Dictionary = _advanced.caps()
	_limits.apply(limits, model.get("durations", {}), model.get("lengths", []))
	_show_frames()


## The chosen model's own durations narrow the daemon's bounds on Seconds; when it lists
## its lengths, Seconds holds only one of them.
func _model_durations(bounds: Dictionary, lengths: Array) -> void:
	_limits.narrow(bounds, lengths)
	_show_frames()


## frames = fps x seconds, capped at the daemon's maximum; {frames, asked, fps}.
func frame_plan() -> Dictionary:
	return _limits.plan()


## Empty when the frames asked for fit; otherwise what the cap does to the animation.
func frames_note() -> String:
	return _limits.note()


func _show_frames(_value: float = 0.0) -> void:
	var note := frames_note()
	_frames_label.text = note if note != "" else "%d frames" % frame_plan()["frames"]


func _say(text: String) -> void:
	_message.text = text


## Shows whether the daemon runs, against what, and the balance; with its answer, the
## limits and the model listing.
func refresh() -> void:
	var was_down := _start_button.visible or not _seconds.editable
	var status: Dictionary = await _link.status()
	if status.is_empty():
		if not was_down:
			disconnected.emit()
		return
	if typeof(status.get("limits")) == TYPE_DICTIONARY:
		apply_limits(status["limits"])
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/models")
	if listed["ok"]:
		_advanced.set_models(listed["data"])
	if _message.text == DaemonClient.NOT_RUNNING or _message.text == _link.starting_text():
		_say("")  # only the daemon's absence is over; a job's last word stays
	if was_down:
		connected.emit()


## Fills the form from a generation's request (its settings as the daemon kept them).
func apply_settings(settings: Dictionary) -> void:
	var export: Dictionary = settings.get("export", {})
	var video: Dictionary = settings.get("video", {})
	if settings.has("prompt"):
		_prompt.text = String(settings["prompt"])
	if export.get("output_width") != null:
		_width.value = float(export["output_width"])
	if export.get("output_height") != null:
		_height.value = float(export["output_height"])
	if video.get("duration_seconds") != null:
		_seconds.value = float(video["duration_seconds"])
	if video.get("model") != null:
		_advanced.select_model(String(video["model"]))
	if video.get("seed") != null:
		_advanced.set_seed(int(video["seed"]))
	if export.get("frame_count") != null and _seconds.value > 0:
		_fps.value = float(export["frame_count"]) / _seconds.value
	var formats: Variant = export.get("output_formats")
	if typeof(formats) == TYPE_ARRAY:
		for format_name in _format_boxes:
			_format_boxes[format_name].button_pressed = format_name in formats
	_advanced.restore(settings)
	var image: Variant = settings.get("image", settings.get("image_path"))
	if image != null:
		var local := ProjectSettings.localize_path(String(image))
		set_image(local if local.begins_with("res://") else "res://" + String(image))
	drop_quote()
	_say("The settings of that generation are in the form: press Quote for its price.")


## The same settings with a new seed, quoted at once: the price is shown before anything
## is spent, and Animate sends exactly that.
func generate_again(settings: Dictionary) -> void:
	apply_settings(settings)
	var old: Variant = settings.get("video", {}).get("seed")
	var seed := randi()
	while old != null and seed == int(old):
		seed = randi()
	_advanced.set_seed(seed)
	await quote()

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
	_image_preview.texture = _picture(path)
	drop_quote()
	_say("Press Quote to see the price.")


## The image as the user sees it, read from the file (it may not be imported yet).
func _picture(path: String) -> Texture2D:
	var image := Image.load_from_file(ProjectSettings.globalize_path(path))
	return null if image == null or image.is_empty() else ImageTexture.create_from_image(image)


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
	var body := {
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
	_advanced.apply_to(body)
	return body


## Whether two paths name the same folder (every link followed).
static func same_folder(a: String, b: String) -> bool:
	return DaemonLink.same_folder(a, b)


## Asks what the request would cost; nothing is spent.
func quote() -> void:
	if image_path == "":
		_say("Choose an image first: right-click it in the FileSystem, or select it and "
			+ "press Use selected.")
		return
	if not await _link.ensure_project(project_root()):
		return
	var body := request_body()
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, "/api/v1/quote", body)
	if not reply["ok"]:
		_say(reply["message"])
		return
	if JSON.stringify(request_body()) != JSON.stringify(body):
		# Changed while the quote was on its way (a setting, or the model list arriving):
		# that price is not for this request, so ask for this one's.
		await quote()
		return
	quoted_credits = int(reply["data"].get("credits", 0))
	quote_id = String(reply["data"].get("quote_id", ""))
	quoted_body = JSON.stringify(body)
	conflicts = reply["data"].get("conflicts", [])
	replace_agreed = false
	_animate_button.disabled = false
	_animate_button.text = "Animate (%d credits)" % quoted_credits
	var note := frames_note()
	_say("This will cost %d credits%s. Press Animate to go ahead.%s"
		% [quoted_credits, money_note(reply["data"]), "" if note == "" else "\n" + note])
	if not conflicts.is_empty():
		_ask_replace()


## The balance and the budgets beside the price: "(balance 960, budget 50 a job)".
static func money_note(quoted: Dictionary) -> String:
	var parts := []
	if quoted.get("balance") != null:
		parts.append("balance %d" % int(quoted["balance"]))
	var budget: Variant = quoted.get("budget")
	if typeof(budget) == TYPE_DICTIONARY:
		if budget.get("per_job") != null:
			parts.append("budget %d a job" % int(budget["per_job"]))
		if budget.get("per_day") != null:
			parts.append("%d of %d spent today" % [int(budget["spent_today"]), int(budget["per_day"])])
		if budget.get("over", false):
			parts.append("over budget: it waits for your approval")
	return "" if parts.is_empty() else " (%s)" % ", ".join(parts)


## The install would replace files the user changed: ask, never replace unasked.
func _ask_replace() -> void:
	_confirm_replace.dialog_text = (
		"You changed %s since the companion wrote it.\n" % _conflict_names()
		+ "Replace it? Your version is moved to .companion-replaced~ beside it, not deleted."
	)
	_confirm_replace.popup_centered()


func _agree_replace() -> void:
	replace_agreed = true
	_say("Your changed files will be moved aside and replaced. Press Animate to go ahead.")


func _refuse_replace() -> void:
	var names := _conflict_names()
	drop_quote()
	_say("Nothing replaced, nothing spent: %s stays yours. Move it away, or animate " % names
		+ "another picture name.")


func _conflict_names() -> String:
	return ", ".join(conflicts.map(func(c: Dictionary) -> String:
		return String(c.get("path", "")).get_file()))


## Starts the job the quote priced, and only that one: without a quote for exactly the
## request shown, it quotes instead of spending. The daemon's quote id goes with it, so
## the daemon refuses a body that is not what was priced.
func animate() -> void:
	var body := request_body()
	if quoted_credits < 0 or JSON.stringify(body) != quoted_body:
		drop_quote()
		await quote()
		return
	if quote_id != "":
		body["quote_id"] = quote_id
	if not conflicts.is_empty():
		if not replace_agreed:
			_ask_replace()
			return
		body["replace"] = true
	drop_quote()  # one quote, one job
	sent_export = body["export"]
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, "/api/v1/animate", body)
	if not reply["ok"]:
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
	drop_quote()  # the quote was spent: the next job is quoted again
	var state := String(job.get("state", ""))
	var export := sent_export
	sent_export = {}
	if state == "done" and _pixel_art.button_pressed and not export.is_empty():
		_say("Done; cutting it as pixel art from the kept video (free)...")
		var cut: Dictionary = await PixelArt.recut(client, job, export)
		if cut.get("state") != "done":
			_say("Done, but the pixel-art cut %s: %s" % [cut.get("state"), cut.get("error", "")])
			finished.emit(job)
			refresh()
			return
	if state == "done" and job.get("resource") != null:
		pending_resource = String(job["resource"])
		_say("Done: %s" % pending_resource)
		_scan_timer.start()
	elif state == "done":
		_say("Done; the files are in %s" % job.get("target_dir", "the target folder"))
		_scan_timer.start()
	else:
		# The daemon sends "error": null when there is no text: say only what happened.
		var why: Variant = job.get("error")
		var text := "" if why == null else String(why).strip_edges()
		_say("The job %s%s" % [state, "." if text == "" else ": " + text])
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
	var loaded := load(resource)
	# In the Inspector only: opening its editor would cover the dock and the result in it.
	EditorInterface.inspect_object(loaded, "", true)
	if loaded is SpriteFrames:
		_result_caption.text = "Latest result: %s" % resource.get_file()
		_result_player.play(loaded)
