@tool
extends VBoxContainer
## The options the chosen model takes, from the daemon's live model listing
## (GET /api/v1/models): each row is shown only when the model supports it, with the
## model's own choices and bounds. Nothing here names a model or a bound.

## Any change of what would be sent (the dock drops its quote).
signal changed
## The chosen model's durations changed: {min, max} in seconds (empty: no bound given)
## and the lengths it makes (empty: any in those bounds).
signal durations_changed(bounds: Dictionary, lengths: Array)

## Model id -> capabilities, in one shape whichever the daemon sends (see caps_of).
var models := {}
var default_model := ""
var last_frame_path := ""
## Whether the user set the Transparent box (or a generation's settings did); until then
## it shows what the picture asks for and the daemon decides it (nothing is sent). Ticked,
## it asks for transparency; unticked, for an opaque result. The key colour is sent only
## once the user picked one: left to the companion, it is one far from the picture's hues.
var transparency_chosen := false
var key_chosen := false
var reference_paths: Array[String] = []
var _picture_alpha := false

@onready var _model: OptionButton = %Model
@onready var _seed_row: Control = %SeedRow
@onready var _fixed_seed: CheckBox = %FixedSeed
@onready var _seed: SpinBox = %Seed
@onready var _resolution_row: Control = %ResolutionRow
@onready var _resolution: OptionButton = %Resolution
@onready var _style_row: Control = %StyleRow
@onready var _style: OptionButton = %Style
@onready var _transparency_row: Control = %TransparencyRow
@onready var _transparent: CheckBox = %Transparent
@onready var _key_colour: ColorPickerButton = %KeyColour
@onready var _last_frame_row: Control = %LastFrameRow
@onready var _last_frame_label: Label = %LastFrameLabel
@onready var _negative_row: Control = %NegativeRow
@onready var _negative_prompt: LineEdit = %NegativePrompt
@onready var _references_row: Control = %ReferencesRow
@onready var _references_label: Label = %ReferencesLabel


func _ready() -> void:
	_model.item_selected.connect(func(_index: int) -> void: _show_model())
	_fixed_seed.toggled.connect(func(on: bool) -> void:
		_seed.editable = on
		changed.emit())
	_seed.value_changed.connect(func(_v: float) -> void: changed.emit())
	_resolution.item_selected.connect(func(_i: int) -> void: changed.emit())
	_style.item_selected.connect(func(_i: int) -> void: changed.emit())
	_transparent.toggled.connect(func(on: bool) -> void:
		transparency_chosen = true
		_key_colour.disabled = not on
		changed.emit())
	_key_colour.color_changed.connect(func(_c: Color) -> void:
		key_chosen = true
		changed.emit())
	_negative_prompt.text_changed.connect(func(_t: String) -> void: changed.emit())
	%LastFrameButton.pressed.connect(
		func() -> void: set_last_frame(EditorInterface.get_current_path())
	)
	%LastFrameClear.pressed.connect(func() -> void: set_last_frame(""))
	%ReferenceAdd.pressed.connect(func() -> void: add_reference(EditorInterface.get_current_path()))
	%ReferencesClear.pressed.connect(clear_references)
	_seed.editable = false
	_key_colour.disabled = true


## The box shows what a picture with (or without) transparent pixels gets, until the
## user sets it.
func show_picture(alpha: bool) -> void:
	_picture_alpha = alpha
	if transparency_chosen:
		return
	_transparent.set_pressed_no_signal(alpha and _transparency_row.visible)
	_key_colour.disabled = not _transparent.button_pressed


## Capabilities in one shape: the contract's ModelCaps, or the service's own listing.
static func caps_of(model: Dictionary) -> Dictionary:
	var transparency: Variant = model.get("transparency")
	if typeof(transparency) != TYPE_DICTIONARY:
		var modes: Array = model.get("transparency_modes", [])
		transparency = {"supported": "alpha_key" in modes, "key_color": "alpha_key" in modes}
	var durations: Variant = model.get("durations", model.get("durations_seconds", []))
	var bounds := {}
	var lengths := []
	if typeof(durations) == TYPE_DICTIONARY:
		bounds = durations
	elif typeof(durations) == TYPE_ARRAY and not durations.is_empty():
		bounds = {"min": durations.min(), "max": durations.max()}
		lengths = durations.map(func(d: Variant) -> float: return float(d))
		lengths.sort()
	var styles: Array = model.get("style_presets", [])
	return {
		"id": String(model.get("id", "")),
		"label": String(model.get("label", model.get("name", model.get("id", "")))),
		"last_frame": bool(model.get("last_frame", model.get("supports_last_frame", false))),
		"references": int(model.get("reference_images_max", model.get("max_reference_images", 0))),
		"seed": bool(model.get("seed", true)),
		"negative_prompt": bool(
			model.get("negative_prompt", model.get("supports_negative_prompt", false))
		),
		"styles": styles.filter(func(s: Variant) -> bool: return String(s) != "none"),
		"resolutions": model.get("resolutions", []),
		"durations": bounds,
		"lengths": lengths,
		"transparency": transparency,
	}


## Fills the model list from the daemon's reply; the chosen model stays when listed.
func set_models(reply: Dictionary) -> void:
	var keep := chosen_model()
	var before := caps()
	models.clear()
	_model.clear()
	for model in reply.get("data", []):
		var caps := caps_of(model)
		if caps["id"] == "":
			continue
		models[caps["id"]] = caps
		_model.add_item(caps["label"])
		_model.set_item_metadata(_model.item_count - 1, caps["id"])
	default_model = String(reply.get("default", ""))
	if default_model == "" and _model.item_count > 0:
		default_model = String(_model.get_item_metadata(0))
	var id := keep if models.has(keep) else default_model
	for index in _model.item_count:
		if _model.get_item_metadata(index) == id:
			_model.select(index)
	# The same model with the same options: nothing the user sees or sends changed.
	_show_model(caps() != before)


func chosen_model() -> String:
	var index := _model.selected
	return "" if index < 0 else String(_model.get_item_metadata(index))


func select_model(id: String) -> void:
	for index in _model.item_count:
		if _model.get_item_metadata(index) == id:
			_model.select(index)
	_show_model()


func caps() -> Dictionary:
	return models.get(chosen_model(), {})


## Shows the rows the chosen model takes, with its choices; drops what it does not take.
func _show_model(emit := true) -> void:
	var model := caps()
	_seed_row.visible = model.get("seed", false)
	_fill(_resolution, model.get("resolutions", []), "model default")
	_resolution_row.visible = not model.get("resolutions", []).is_empty()
	_fill(_style, model.get("styles", []), "none")
	_style_row.visible = not model.get("styles", []).is_empty()
	var transparency: Dictionary = model.get("transparency", {})
	_transparency_row.visible = transparency.get("supported", false)
	_key_colour.visible = transparency.get("key_color", false)
	if not _transparency_row.visible:
		_transparent.set_pressed_no_signal(false)
	elif not transparency_chosen:
		show_picture(_picture_alpha)
	_last_frame_row.visible = model.get("last_frame", false)
	if not _last_frame_row.visible:
		last_frame_path = ""
	_negative_row.visible = model.get("negative_prompt", false)
	var most := int(model.get("references", 0))
	_references_row.visible = most > 0
	if reference_paths.size() > most:
		reference_paths.resize(most)
	_show_files()
	durations_changed.emit(model.get("durations", {}), model.get("lengths", []))
	if emit:
		changed.emit()


func _fill(options: OptionButton, items: Array, first: String) -> void:
	var was := options.get_item_text(options.selected) if options.selected >= 0 else ""
	options.clear()
	options.add_item(first)
	for item in items:
		options.add_item(String(item))
		if String(item) == was:
			options.select(options.item_count - 1)


## A fixed seed, as if the user typed it.
func set_seed(value: int) -> void:
	_fixed_seed.button_pressed = true
	_seed.value = value
	changed.emit()


## The options of a generation's request (its settings, as the daemon kept them): choices,
## transparency and its key colour, files (as res:// paths) and the negative prompt.
func restore(settings: Dictionary) -> void:
	var video: Dictionary = settings.get("video", {})
	_choose_text(_resolution, video.get("resolution"))
	_choose_text(_style, video.get("style_preset"))
	var transparency: Variant = video.get("transparency")
	var keyed: bool = (typeof(transparency) == TYPE_DICTIONARY
		and transparency.get("mode") == "alpha_key")
	_transparent.set_pressed_no_signal(keyed and _transparency_row.visible)
	transparency_chosen = typeof(transparency) == TYPE_DICTIONARY
	_key_colour.disabled = not _transparent.button_pressed
	key_chosen = keyed and transparency.get("key_color") != null
	if key_chosen:
		_key_colour.color = Color.html(String(transparency["key_color"]))
	var last: Variant = settings.get("last_frame")
	last_frame_path = "" if last == null else ProjectSettings.localize_path(String(last))
	reference_paths.clear()
	for path in settings.get("references", []):
		reference_paths.append(ProjectSettings.localize_path(String(path)))
	var negative: Variant = settings.get("negative_prompt")
	_negative_prompt.text = "" if negative == null else String(negative)
	_show_files()
	changed.emit()


## Selects the item of that text (the first, "model default" or "none", for null).
static func _choose_text(options: OptionButton, value: Variant) -> void:
	options.select(0)
	for index in options.item_count:
		if value != null and options.get_item_text(index) == String(value):
			options.select(index)


func set_last_frame(path: String) -> void:
	last_frame_path = path
	_show_files()
	changed.emit()


func add_reference(path: String) -> void:
	if path == "" or path in reference_paths:
		return
	if reference_paths.size() >= int(caps().get("references", 0)):
		return
	reference_paths.append(path)
	_show_files()
	changed.emit()


func clear_references() -> void:
	reference_paths.clear()
	_show_files()
	changed.emit()


func _show_files() -> void:
	_last_frame_label.text = "Last frame: " + (
		"none" if last_frame_path == "" else last_frame_path.get_file()
	)
	_references_label.text = "References: %d of %d" % [
		reference_paths.size(), int(caps().get("references", 0))
	]


## Adds what the model takes to the request; only what the user set is sent.
func apply_to(body: Dictionary) -> void:
	var model := caps()
	if model.is_empty():
		return
	var video: Dictionary = body["video"]
	video["model"] = model["id"]
	if _seed_row.visible and _fixed_seed.button_pressed:
		video["seed"] = int(_seed.value)
	if _resolution_row.visible and _resolution.selected > 0:
		video["resolution"] = _resolution.get_item_text(_resolution.selected)
	if _style_row.visible and _style.selected > 0:
		video["style_preset"] = _style.get_item_text(_style.selected)
	if _transparency_row.visible and transparency_chosen and not _transparent.button_pressed:
		video["transparency"] = {"mode": "standard"}  # an opaque result, asked for
	elif _transparency_row.visible and transparency_chosen:
		var transparency := {"mode": "alpha_key"}
		if _key_colour.visible and key_chosen:
			transparency["key_color"] = "#" + _key_colour.color.to_html(false)
			transparency["key_selection"] = "manual"
		video["transparency"] = transparency
	if _last_frame_row.visible and last_frame_path != "":
		body["last_frame_path"] = last_frame_path.trim_prefix("res://")
	if _references_row.visible and not reference_paths.is_empty():
		body["reference_paths"] = reference_paths.map(
			func(p: String) -> String: return p.trim_prefix("res://")
		)
	if _negative_row.visible and _negative_prompt.text.strip_edges() != "":
		body["negative_prompt"] = _negative_prompt.text.strip_edges()
