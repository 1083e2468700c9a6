@tool
extends HBoxContainer
## The Animate dock (dock.tscn): daemon status and balance, the request's settings, a
## quote bound to exactly what it priced, progress with Cancel, the chosen picture and the
## latest result playing. The limits of size, frames and seconds come from the daemon.

## Emitted once per job, when it reaches done, failed or cancelled.
signal finished(job: Dictionary)
## Emitted each time the daemon answers after it did not (and on the first answer).
signal connected

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const PixelArt := preload("res://addons/companion/pixel_art.gd")
const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]
const OPTIONAL_FORMATS := ["godot_pack", "gif", "webm_alpha", "frames_zip"]
const FINAL_STATES := ["done", "failed", "cancelled"]
## How long the dock keeps trying to connect after it started the daemon.
const START_WAIT_SECONDS := 30.0

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
var max_frames := 0
## The process id of a daemon this dock is waiting for (-1: none), and of the last started.
var started_pid := -1
var launched_pid := -1
var _polling := false
var _start_deadline := 0
var _format_boxes := {}
## Seconds as the daemon's limits allow them, before the model's own durations narrow it.
var _seconds_range := Vector2.ZERO

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
	_wire()
	refresh()


func _wire() -> void:
	%RefreshButton.pressed.connect(refresh)
	%UseSelectedButton.pressed.connect(use_selected_file)
	_start_button.pressed.connect(start_daemon)
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
	_spin(_width, 256)
	_spin(_height, 256)
	_spin(_fps, 12)
	_spin(_seconds, 2)
	for spin in [_width, _height, _fps, _seconds]:
		spin.value_changed.connect(_changed)
	_fps.value_changed.connect(_show_frames)
	_seconds.value_changed.connect(_show_frames)
	_prompt.text_changed.connect(_changed)
	_poll_timer.timeout.connect(_poll_job)
	_scan_timer.timeout.connect(_scan_now)
	_reconnect_timer.timeout.connect(_reconnect)
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
	_seconds_range = Vector2(_seconds.min_value, _seconds.max_value)
	_model_durations(_advanced.caps().get("durations", {}))


## The chosen model's own durations narrow the daemon's bounds on Seconds.
func _model_durations(bounds: Dictionary) -> void:
	if _seconds_range == Vector2.ZERO:
		return  # the daemon's limits are not known yet: the box stays locked
	var low := _seconds_range.x
	var high := _seconds_range.y
	if bounds.get("min") != null:
		low = maxf(low, float(bounds["min"]))
	if bounds.get("max") != null:
		high = minf(high, float(bounds["max"]))
	_limit(_seconds, low, maxf(low, high))
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
		_start_button.visible = true
		if started_pid >= 0:
			_say(_starting_text())
		elif not _message.text.begins_with("The daemon did not answer"):
			_say(reply["message"])
		if _reconnect_timer.is_stopped():
			_reconnect_timer.start()
		return
	var was_down := _start_button.visible or not _seconds.editable
	_start_button.visible = false
	_reconnect_timer.stop()
	started_pid = -1
	var status: Dictionary = reply["data"]
	var mode := "Sandbox (no credits are spent)" if status.get("mode") == "sandbox" else "Live"
	var balance: Variant = status.get("balance")
	var credits := "?" if balance == null else str(int(balance))
	_status_label.text = "%s · balance %s credits" % [mode, credits]
	if status.get("reachable") == false:  # the daemon runs; the service does not answer
		_status_label.text = "%s · service not answering: work waits for it" % mode
	var note := DaemonClient.version_note(str(status.get("version", "")))
	if note != "":
		_status_label.text += "\n" + note
	if typeof(status.get("limits")) == TYPE_DICTIONARY:
		apply_limits(status["limits"])
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/models")
	if listed["ok"]:
		_advanced.set_models(listed["data"])
	if _message.text == DaemonClient.NOT_RUNNING or _message.text == _starting_text():
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

## Starts the daemon with the command from the editor settings; the reconnect timer
## then finds it as soon as it answers.
func start_daemon() -> void:
	started_pid = DaemonClient.start_daemon()
	launched_pid = started_pid
	if started_pid < 0:
		_say("Could not run \"%s serve\". Set the companion command in Editor Settings > "
			% DaemonClient.command() + "%s." % DaemonClient.COMMAND_SETTING)
		return
	_start_deadline = Time.get_ticks_msec() + int(START_WAIT_SECONDS * 1000)
	_say(_starting_text())
	_reconnect_timer.start()


func _starting_text() -> String:
	return "Starting the daemon (%s serve)..." % DaemonClient.command()


## While the daemon is away the dock looks for it every second, so it connects by itself
## once it runs (started here or in a terminal).
func _reconnect() -> void:
	if started_pid >= 0 and Time.get_ticks_msec() > _start_deadline:
		started_pid = -1
		_say("The daemon did not answer after %d s: run \"%s serve\" in a terminal to "
			% [int(START_WAIT_SECONDS), DaemonClient.command()] + "see why.")
	refresh()


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
