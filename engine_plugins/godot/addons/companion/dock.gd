@tool
extends HBoxContainer
## The Animate dock (dock.tscn): daemon status and balance, the request's settings, a
## quote bound to exactly what it priced, progress with Cancel, the chosen picture and the
## latest result playing. The limits of size, frames and seconds come from the daemon.
## Each job has its script: daemon_link.gd, frame_limits.gd, request_form.gd,
## quote_line.gd, job_run.gd, picture.gd, result_landing.gd and advanced.gd; several
## pictures at once batch.gd. A character's moves are the Character tab (moves.tscn), made
## from this form.

## Emitted once per job, when it reaches done, failed or cancelled.
signal finished(job: Dictionary)
## Emitted each time the daemon answers after it did not (and on the first answer).
signal connected
## Emitted when the daemon goes away after it answered (its event stream closed, or it
## did not answer).
signal disconnected
## Emitted when another picture is chosen (a res:// path).
signal picture_chosen(path: String)

const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const FrameLimits := preload("res://addons/companion/frame_limits.gd")
const DaemonLink := preload("res://addons/companion/daemon_link.gd")
const QuoteLine := preload("res://addons/companion/quote_line.gd")
const RequestForm := preload("res://addons/companion/request_form.gd")
const JobRun := preload("res://addons/companion/job_run.gd")
const Picture := preload("res://addons/companion/picture.gd")
const ResultLanding := preload("res://addons/companion/result_landing.gd")
const Batch := preload("res://addons/companion/batch.gd")

var client: Node
## The chosen image (a res:// path).
var image_path: String:
	get:
		return _picture.image_path
var job_id: String:
	get:
		return _run.job_id
	set(value):
		_run.job_id = value
## The price of the quoted request, or -1 when there is no quote for what is shown.
var quoted_credits: int:
	get:
		return _quote.credits
## What pressing Animate spends now: the price, or 0 when an earlier job answers it.
var quoted_spends: int:
	get:
		return _quote.spends
## The daemon's id for that quote (sent with Animate) and the request it priced.
var quote_id: String:
	get:
		return _quote.id
var quoted_body: String:
	get:
		return _quote.body
## The user's changed files the quote said the install would replace, and whether the
## user agreed.
var conflicts: Array:
	get:
		return _quote.conflicts
var replace_agreed: bool:
	get:
		return _quote.replace_agreed
var pending_resource: String:
	get:
		return _landing.pending_resource
## Filesystem scans this dock asked the editor for.
var scans: int:
	get:
		return _landing.scans
## The most frames a one-click animation may have (status limits.frame_count.max).
var max_frames: int:
	get:
		return _limits.max_frames
## The process id of the daemon the dock last started (-1: none).
var launched_pid: int:
	get:
		return _link.launched_pid
## The dock's line to the daemon (daemon_link.gd): its project registration serves the
## Character tab too.
var link: Node:
	get:
		return _link
## Several pictures animated at once (batch.gd): chosen from the FileSystem's selection.
var batch: Node:
	get:
		return _batch
var _limits: RefCounted
var _link: Node
var _quote: RefCounted
var _form: RefCounted
var _run: Node
var _picture: RefCounted
var _landing: RefCounted
var _batch: Node

@onready var _status_label: Label = %StatusLabel
@onready var _start_button: Button = %StartButton
@onready var _image_preview: TextureRect = %ImagePreview
@onready var _prompt: TextEdit = %Prompt
@onready var _width: SpinBox = %Width
@onready var _height: SpinBox = %Height
@onready var _fps: SpinBox = %Fps
@onready var _seconds: SpinBox = %Seconds
@onready var _frames_label: Label = %FramesLabel
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
	_link.went_away.connect(func() -> void: disconnected.emit())
	_link.job_ended.connect(func(_job: Dictionary) -> void: refresh())  # the balance after it
	_limits = FrameLimits.new(_width, _height, _fps, _seconds)
	_quote = QuoteLine.new(_animate_button, _confirm_replace, _say)
	_quote.name_taken.connect(take_name)
	_picture = Picture.new(%ImageLabel, _image_preview)
	_form = RequestForm.new(self, _limits, _picture, _changed)
	_landing = ResultLanding.new(_scan_timer, _result_caption, _result_player, %ResultInfo)
	_run = JobRun.new()
	add_child(_run)
	_run.setup(self, client, _quote, _landing)
	_run.finished.connect(func(job: Dictionary) -> void:
		finished.emit(job)
		refresh())
	_batch = Batch.new()
	add_child(_batch)
	_batch.setup(self, _say)
	_batch.finished.connect(set_finished)
	_wire()
	refresh()


func _wire() -> void:
	%RefreshButton.pressed.connect(refresh)
	%UseSelectedButton.pressed.connect(use_selected_file)
	_start_button.pressed.connect(_link.start_daemon)
	_quote_button.pressed.connect(quote)
	_animate_button.pressed.connect(animate)
	_cancel_button.pressed.connect(_run.cancel)
	_approve_button.pressed.connect(_run.approve)
	for spin in [_width, _height, _fps, _seconds]:
		spin.value_changed.connect(_changed)
	_fps.value_changed.connect(_show_frames)
	_seconds.value_changed.connect(_show_frames)
	_prompt.text_changed.connect(_changed)
	%Name.text_changed.connect(_changed)
	%AdvancedToggle.toggled.connect(func(on: bool) -> void: _advanced.visible = on)
	_advanced.changed.connect(_changed)
	_advanced.durations_changed.connect(_model_durations)


## Any change of what would be sent drops the quote: the price shown is always the
## price of exactly this request.
func _changed(_value: Variant = null) -> void:
	if _quote.is_empty():
		return
	drop_quote()
	if job_id == "":
		_say("The settings changed: press Quote for the new price.")


func drop_quote() -> void:
	_quote.drop()
	_batch.drop()


## A character's moves or a batch ended: its newest SpriteFrames lands and plays, the
## balance and the Generations list are read again.
func set_finished(job: Dictionary) -> void:
	if job.get("resource") != null:
		_landing.land(String(job["resource"]))
	elif not job.is_empty():
		_landing.land("")
	finished.emit(job)
	refresh()


## The free name the quote suggested: it goes in the Name box and is priced at once (a
## new name is a new request), so nothing of the user's is replaced.
func take_name(chosen: String) -> void:
	_form.set_name(chosen)
	drop_quote()
	_say("Named %s: quoting it." % chosen)
	await quote()


## Sets every box from the daemon's limits (GET /api/v1/status, "limits").
func apply_limits(limits: Dictionary) -> void:
	var model: Dictionary = _advanced.caps()
	_form.filling(func() -> void:
		_limits.apply(limits, model.get("durations", {}), model.get("lengths", [])))
	_form.show_picture()  # the bounds may have held the picture's size back
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
	var was_down: bool = not _link.online
	var status: Dictionary = await _link.status()
	if status.is_empty():
		return  # the link said so, and looks for the daemon every second
	if typeof(status.get("limits")) == TYPE_DICTIONARY:
		apply_limits(status["limits"])
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/models")
	if listed["ok"]:
		_advanced.set_models(listed["data"])
	if _message.text == DaemonClient.NOT_RUNNING or _message.text == _link.starting_text():
		_say("")  # only the daemon's absence is over; a job's last word stays
	if was_down:
		connected.emit()
		await _show_newest()


## After an editor start the dock plays the project's newest result, as it would have
## after its own job.
func _show_newest() -> void:
	var query := "/api/v1/generations?project=%s" % project_root().uri_encode()
	var listed: Dictionary = await client.call_api(HTTPClient.METHOD_GET, query)
	if listed["ok"]:
		_landing.show_newest(listed["data"].get("data", []))


## Fills the form from a generation's request (its settings as the daemon kept them).
func apply_settings(settings: Dictionary) -> void:
	var image: String = _form.restore(settings)
	if image != "":
		set_image(image)
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
	return Picture.is_image(path)


## The image the next request animates (a res:// path).
func set_image(path: String) -> void:
	if not _picture.choose(path):
		_say("Choose a PNG, JPEG or WebP image.")
		return
	_batch.paths = []
	picture_chosen.emit(path)
	_form.show_picture()
	drop_quote()
	_say("Press Quote to see the price.")


func use_selected_file() -> void:
	var chosen: Array = Array(EditorInterface.get_selected_paths()).filter(is_image)
	if chosen.size() >= 2:
		batch.choose(chosen)
	else:
		set_image(EditorInterface.get_current_path())


func project_root() -> String:
	return RequestForm.project_root()


## The request the form shows, as sent to quote and animate.
func request_body() -> Dictionary:
	return _form.body()


## Whether two paths name the same folder (every link followed).
static func same_folder(a: String, b: String) -> bool:
	return DaemonLink.same_folder(a, b)


## Asks what the request would cost; nothing is spent.
func quote() -> void:
	if _batch.active():
		if await _link.ensure_project(project_root()):
			await _batch.price()
		return
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
	_quote.take(reply["data"], body, frames_note())


## The balance and the budgets beside the price: "(balance 960, budget 50 a job)".
static func money_note(quoted: Dictionary) -> String:
	return QuoteLine.money_note(quoted)


## Starts the job the quote priced, and only that one: without a quote for exactly the
## request shown, it quotes instead of spending. The daemon's quote id goes with it, so
## the daemon refuses a body that is not what was priced.
func animate() -> void:
	if _batch.active():
		await _batch.start()
		return
	var body := request_body()
	if not _quote.prices(body):
		drop_quote()
		await quote()
		return
	if quote_id != "":
		body["quote_id"] = quote_id
	if not conflicts.is_empty():
		if not replace_agreed:
			_quote.ask_replace()
			return
		body["replace"] = true
	await _run.start(body)


func cancel() -> void:
	await _run.cancel()


func approve() -> void:
	await _run.approve()
