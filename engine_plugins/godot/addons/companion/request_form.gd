@tool
extends RefCounted
## The dock's form as a request: the body sent to quote and animate, built from the boxes,
## and the boxes filled again from a generation's kept request.

const OPTIONAL_FORMATS := ["godot_pack", "gif", "webm_alpha", "frames_zip"]

var format_boxes := {}
## Whether the user set the Size boxes (typed, or a generation's settings used); until
## then they show the picture's own size and the daemon decides it (nothing is sent).
var size_chosen := false
## Whether the user set the In place box; until then it shows what the daemon does for
## an engine pack (on with the Godot pack, for a transparent picture) and nothing is sent.
var in_place_chosen := false
var _prompt: TextEdit
var _name: LineEdit
var _width: SpinBox
var _height: SpinBox
var _fps: SpinBox
var _seconds: SpinBox
var _limits: RefCounted
var _picture: RefCounted
var _advanced: VBoxContainer
var _in_place: CheckBox
var _loop: CheckBox
var _filling := false


## The boxes are the dock's (by their unique names); each format box calls on_change.
func _init(dock: Control, limits: RefCounted, picture: RefCounted, on_change: Callable) -> void:
	_prompt = dock.get_node("%Prompt")
	_name = dock.get_node("%Name")
	_width = dock.get_node("%Width")
	_height = dock.get_node("%Height")
	_fps = dock.get_node("%Fps")
	_seconds = dock.get_node("%Seconds")
	_limits = limits
	_picture = picture
	_advanced = dock.get_node("%Advanced")
	format_boxes = format_boxes_in(dock.get_node("%Formats"), ["godot_pack"])
	for box in format_boxes.values():
		box.toggled.connect(on_change)
	for spin in [_width, _height]:
		spin.value_changed.connect(func(_v: float) -> void: size_chosen = size_chosen or not _filling)
	# In place and Loop are sent with the request (a change after a generation is a free
	# re-cut of its kept clip): each drops the quote like any setting.
	_in_place = dock.get_node("%InPlace")
	_loop = dock.get_node("%Loop")
	_in_place.toggled.connect(func(_on: bool) -> void:
		in_place_chosen = in_place_chosen or not _filling
		on_change.call(_on))
	_loop.toggled.connect(on_change)
	format_boxes["godot_pack"].toggled.connect(func(on: bool) -> void:
		if not in_place_chosen:
			filling(func() -> void: _in_place.button_pressed = on))


## The Size boxes show the picture's own size (within their bounds) until the user sets
## them; the transparency the picture asks for is shown the same way (see advanced.gd).
func show_picture() -> void:
	_advanced.show_picture(_picture.alpha)
	if size_chosen or _picture.size == Vector2i.ZERO:
		return
	# Scaled into the bounds keeping its proportions, as the daemon does.
	var size := Vector2(_picture.size)
	var scale := minf(1.0, _width.max_value / maxf(size.x, size.y))
	scale = maxf(scale, _width.min_value / minf(size.x, size.y))
	filling(func() -> void:
		_width.value = roundf(size.x * scale)
		_height.value = roundf(size.y * scale))


## Runs work that sets the Size boxes without it counting as the user's choice.
func filling(work: Callable) -> void:
	_filling = true
	work.call()
	_filling = false


## A box per optional format added to parent (those named in ticked ticked), by name;
## the dock's form and the re-cut form both ask with these.
static func format_boxes_in(parent: Node, ticked: Array) -> Dictionary:
	var boxes := {}
	for format_name in OPTIONAL_FORMATS:
		var box := CheckBox.new()
		box.text = format_name
		box.button_pressed = format_name in ticked
		parent.add_child(box)
		boxes[format_name] = box
	return boxes


## The formats asked for: the sheet and its JSON always, then each ticked box.
static func formats_of(boxes: Dictionary) -> Array:
	var formats := ["spritesheet", "spritesheet_json"]
	for format_name in OPTIONAL_FORMATS:
		if boxes[format_name].button_pressed:
			formats.append(format_name)
	return formats


## Ticks the boxes of the formats a kept request asked for, unticks the others.
static func tick_formats(boxes: Dictionary, formats: Array) -> void:
	for format_name in boxes:
		boxes[format_name].button_pressed = format_name in formats


static func project_root() -> String:
	return ProjectSettings.globalize_path("res://")


## A one-click animation takes a frame count over the video's duration, so the fps
## asked for becomes frames = fps x seconds.
func body() -> Dictionary:
	var formats := formats_of(format_boxes)
	var request := {
		"project_root": project_root(),
		"image_path": _picture.image_path.trim_prefix("res://"),
		"prompt": _prompt.text.strip_edges(),
		"video": {"duration_seconds": _seconds.value},
		"export": {
			"frame_count": _limits.plan()["frames"],
			"output_formats": formats,
		},
	}
	if size_chosen:  # else the picture's own size, decided by the daemon
		request["export"]["output_width"] = int(_width.value)
		request["export"]["output_height"] = int(_height.value)
	# Empty: the daemon names it after the picture. Any script is a name; the daemon
	# says when one is not.
	var chosen := _name.text.strip_edges()
	if chosen != "":
		request["name"] = chosen
	if in_place_chosen:
		request["in_place"] = _in_place.button_pressed
	if _loop.button_pressed:
		request["loop"] = true
	_advanced.apply_to(request)
	return request


## Sets the Name box (a name the quote found free); what it changes is up to the caller.
func set_name(chosen: String) -> void:
	_name.text = chosen


## Fills the boxes from a generation's request (its settings as the daemon kept them);
## the picture it animated as a res:// path ("" when it names none).
func restore(settings: Dictionary) -> String:
	var export: Dictionary = settings.get("export", {})
	var video: Dictionary = settings.get("video", {})
	if settings.has("prompt"):
		_prompt.text = String(settings["prompt"])
	if settings.get("name") != null:
		_name.text = String(settings["name"])
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
		tick_formats(format_boxes, formats)
	_advanced.restore(settings)
	var image: Variant = settings.get("image", settings.get("image_path"))
	if image == null:
		return ""
	var local := ProjectSettings.localize_path(String(image))
	return local if local.begins_with("res://") else "res://" + String(image)
