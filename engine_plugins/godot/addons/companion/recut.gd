@tool
extends VBoxContainer
## Re-cut for free (recut.tscn): a generation's kept video exported again by the daemon
## with other frames, size, range, padding, pixel art or formats; nothing is sent to the
## service. The range is picked on a contact sheet of the clip: click a frame to start
## there, Shift+click (or right-click) to end there. Bounds come from the daemon.

## A re-cut ended (its job as the daemon last gave it).
signal finished(job: Dictionary)

const RequestForm := preload("res://addons/companion/request_form.gd")
## How many frames the contact sheet shows across the clip.
const SHEET_CELLS := 8
## The contact sheet's size at zoom 1: cells big enough to see a pose and read its time.
const SHEET_SIZE := Vector2(340, 176)

var client: Node
## The generation being re-cut, and the clip's length in seconds (0: unknown).
var generation := {}
var clip_seconds := 0.0
## The daemon's contact sheet reply ({} until shown): the image and its labelled cells.
var sheet := {}
var said := ""
## The re-cut the daemon refused for a file the user changed (409 CONFLICT): pressed
## again unchanged, it is sent with "replace": true (their file is moved aside).
var refused_body := ""
var _format_boxes := {}

@onready var _title: Label = %Title
@onready var _sheet_button: Button = %SheetButton
@onready var _sheet: TextureRect = %Sheet
@onready var _start: SpinBox = %Start
@onready var _end: SpinBox = %End
@onready var _frames: SpinBox = %Frames
@onready var _width: SpinBox = %Width
@onready var _height: SpinBox = %Height
@onready var _padding: SpinBox = %Padding
@onready var _pixel_art: CheckBox = %PixelArt
@onready var _name: LineEdit = %Name
@onready var _recut_button: Button = %RecutButton
@onready var _said: Label = %Said


func _ready() -> void:
	_format_boxes = RequestForm.format_boxes_in(%Formats, [])
	_sheet_button.pressed.connect(show_sheet)
	%Zoom.value_changed.connect(zoom)
	_recut_button.pressed.connect(recut)
	_sheet.gui_input.connect(_on_sheet_input)
	_start.value_changed.connect(func(_v: float) -> void: _show_range())
	_end.value_changed.connect(func(_v: float) -> void: _show_range())


## The contact sheet drawn bigger (1 to 3 times; the panel scrolls to it), so its frames
## and their times can be read.
func zoom(times: float) -> void:
	_sheet.custom_minimum_size = SHEET_SIZE * times


## Fills the form from a generation (its export as it was) and the daemon's limits.
func open(row: Dictionary) -> void:
	generation = row
	sheet = {}
	_recut_button.disabled = true  # until the form holds this generation's settings
	_sheet_button.disabled = true
	_sheet.texture = null
	var clip: Dictionary = row.get("clip", {}) if typeof(row.get("clip")) == TYPE_DICTIONARY else {}
	var length: Variant = clip.get("duration_seconds")
	clip_seconds = 0.0 if length == null else float(length)
	_title.text = "Re-cut %s (free: its kept video)" % row.get("name", "")
	var status: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/status")
	var limits: Dictionary = status["data"].get("limits", {}) if status["ok"] else {}
	var size: Dictionary = limits.get("size", {})
	for spin in [_width, _height]:
		spin.min_value = float(size.get("min", 1))
		spin.max_value = float(size.get("max", 4096))
	_frames.min_value = float(limits.get("frame_count", {}).get("min", 1))
	_frames.max_value = float(limits.get("frame_count", {}).get("max", 1))
	_padding.min_value = float(limits.get("padding", {}).get("min", 0))
	_padding.max_value = float(limits.get("padding", {}).get("max", 0))
	var export: Dictionary = row.get("settings", {}).get("export", {})
	_width.value = float(export.get("output_width", _width.min_value))
	_height.value = float(export.get("output_height", _height.min_value))
	_frames.value = float(export.get("frame_count", _frames.min_value))
	RequestForm.tick_formats(_format_boxes, export.get("output_formats", []))
	for spin in [_start, _end]:
		spin.max_value = maxf(clip_seconds, 0.01)
	_start.value = 0.0
	_end.value = clip_seconds
	_name.text = String(row.get("name", ""))
	var kept: bool = clip.get("kept", false)
	_recut_button.disabled = not kept
	_sheet_button.disabled = not kept
	_say("" if kept else "This video is no longer kept: Generate again makes it anew.")


## Asks the daemon for a contact sheet of the clip (free) and shows it.
func show_sheet() -> void:
	if clip_seconds <= 0.0:
		_say("The clip's length is not known: the whole clip is re-cut.")
		return
	var times := []
	for index in SHEET_CELLS:
		times.append(snappedf(clip_seconds * (index + 0.5) / SHEET_CELLS, 0.001))
	var path := "/api/v1/generations/%s/contact_sheet" % generation["id"]
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {"times": times})
	if not reply["ok"]:
		_say(reply["message"])
		return
	var png: Dictionary = await client.fetch_bytes(String(reply["data"]["image"]))
	var image := Image.new()
	if not png["ok"] or image.load_png_from_buffer(png["body"]) != OK:
		_say("The contact sheet could not be shown: %s" % png["message"])
		return
	sheet = reply["data"]
	_sheet.texture = ImageTexture.create_from_image(image)
	_say("Click a frame to start there; Shift+click (or right-click) one to end there.")


## The cell under a point of the sheet as drawn (kept aspect, centred), or -1.
func cell_at(point: Vector2) -> int:
	var drawn := _drawn_rect()
	if drawn.size.x <= 0.0 or not drawn.has_point(point):
		return -1
	var scale := drawn.size.x / float(sheet.get("width", 1))
	var inside := (point - drawn.position) / scale
	for cell in sheet.get("cells", []):
		var r: Array = cell["rect"]
		if Rect2(r[0], r[1], r[2], r[3]).has_point(inside):
			return int(cell["index"])
	return -1


## Where the middle of a cell is drawn, in the sheet's own coordinates.
func cell_center(index: int) -> Vector2:
	var drawn := _drawn_rect()
	var scale := drawn.size.x / float(sheet.get("width", 1))
	for cell in sheet.get("cells", []):
		if int(cell["index"]) == index:
			var r: Array = cell["rect"]
			return drawn.position + Vector2(r[0] + r[2] / 2.0, r[1] + r[3] / 2.0) * scale
	return Vector2(-1, -1)


func _drawn_rect() -> Rect2:
	if _sheet.texture == null or sheet.is_empty():
		return Rect2()
	var area := _sheet.size
	var native := Vector2(float(sheet["width"]), float(sheet["height"]))
	var scale := minf(area.x / native.x, area.y / native.y)
	var drawn := native * scale
	return Rect2((area - drawn) / 2.0, drawn)


func _on_sheet_input(event: InputEvent) -> void:
	var click := event as InputEventMouseButton
	if click == null or not click.pressed:
		return
	var index := cell_at(click.position)
	if index < 0:
		return
	var as_end := click.shift_pressed or click.button_index == MOUSE_BUTTON_RIGHT
	pick(index, as_end)


## The range starts (or ends) at a cell's time.
func pick(index: int, as_end: bool) -> void:
	for cell in sheet.get("cells", []):
		if int(cell["index"]) == index:
			var time := float(cell["source_time_seconds"])
			if as_end:
				_end.value = time
			else:
				_start.value = time
	_show_range()


func _show_range() -> void:
	if _end.value <= _start.value:
		_say("The range ends before it starts: pick a later end.")
	else:
		_say("From %.2f s to %.2f s of %.2f s." % [_start.value, _end.value, clip_seconds])


## The daemon's RecutIn for what the form shows.
func request_body() -> Dictionary:
	var formats := RequestForm.formats_of(_format_boxes)
	var body := {
		"export": {
			"frame_count": int(_frames.value),
			"output_width": int(_width.value),
			"output_height": int(_height.value),
			"output_formats": formats,
		},
		"pixel_art": _pixel_art.button_pressed,
		"padding": int(_padding.value),
	}
	var whole := _start.value <= 0.0 and (clip_seconds <= 0.0 or _end.value >= clip_seconds)
	if not whole:
		body["selection"] = {
			"mode": "range",
			"start_seconds": snappedf(_start.value, 0.001),
			"duration_seconds": snappedf(_end.value - _start.value, 0.001),
		}
	var name := _name.text.strip_edges()
	if name != "" and name != String(generation.get("name", "")):
		body["name"] = name
	return body


## Sends the re-cut (free) and follows it to its end.
func recut() -> void:
	if _end.value <= _start.value:
		_say("The range ends before it starts: pick a later end.")
		return
	var path := "/api/v1/generations/%s/recut" % generation["id"]
	var body := request_body()
	var asked := JSON.stringify(body)
	if asked == refused_body:
		body["replace"] = true  # the user read what it replaces and pressed again
	refused_body = ""
	_recut_button.disabled = true
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, body)
	if not reply["ok"]:
		_recut_button.disabled = false
		var problem: Variant = reply["data"].get("error")
		if typeof(problem) == TYPE_DICTIONARY and problem.get("code") == "CONFLICT":
			refused_body = asked
			_say("%s\nPress Re-cut again to replace it: yours is moved aside, not deleted."
				% reply["message"])
			return
		_say(reply["message"])
		return
	_say("Re-cutting (free)...")
	var job: Dictionary = await client.wait_job(String(reply["data"]["id"]))
	_recut_button.disabled = false
	var state := String(job.get("state", ""))
	if state == "done":
		_say("Re-cut done, nothing spent: %s" % String(job.get("resource", job.get("target_dir", ""))))
	else:
		_say("The re-cut %s: %s" % [state, String(job.get("error", ""))])
	finished.emit(job)


func _say(text: String) -> void:
	said = text
	_said.text = text
