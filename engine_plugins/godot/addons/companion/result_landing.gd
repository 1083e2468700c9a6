@tool
extends RefCounted
## A finished job's files reaching the editor: one filesystem scan once they landed, then
## the new SpriteFrames selected, shown in the Inspector and played in the dock.

## The resource waiting to be listed by the editor's filesystem ("" when none).
var pending_resource := ""
## Whether the waiting resource is pixel art (played with the nearest filter).
var pending_pixel_art := false
## Filesystem scans the dock asked the editor for.
var scans := 0
var _scan_timer: Timer
var _caption: Label
var _player: TextureRect
var _info: Label


func _init(scan_timer: Timer, caption: Label, player: TextureRect, info: Label) -> void:
	_scan_timer = scan_timer
	_caption = caption
	_player = player
	_info = info
	_scan_timer.timeout.connect(_scan_now)


## The job's files are in the project: scan soon, then select the resource when given.
func land(resource: String, pixel_art := false) -> void:
	if resource != "":
		pending_resource = resource
		pending_pixel_art = pixel_art
	_scan_timer.start()


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
	show_result(resource, pending_pixel_art)


## Whether a generation's row was cut as pixel art (its local export says so).
static func is_pixel_art(row: Dictionary) -> bool:
	var settings: Variant = row.get("settings")
	if typeof(settings) != TYPE_DICTIONARY:
		return false
	var local: Variant = settings.get("local_export")
	return typeof(local) == TYPE_DICTIONARY and bool(local.get("pixel_art", false))


## Plays a SpriteFrames in the dock, named, with its frame size and count; false when the
## path is not one.
func show_result(resource: String, pixel_art := false) -> bool:
	if resource == "" or not ResourceLoader.exists(resource):
		return false
	var loaded := load(resource)
	if not loaded is SpriteFrames:
		return false
	_caption.text = "Latest result: %s" % resource.get_file()
	_caption.tooltip_text = resource
	_player.play(loaded, pixel_art)
	_info.text = describe(loaded)
	return true


## "128x128 px · 16 frames · 8 fps" of a SpriteFrames' first animation.
static func describe(frames: SpriteFrames) -> String:
	var names := frames.get_animation_names()
	if names.is_empty():
		return "no frames"
	var count := frames.get_frame_count(names[0])
	var first := frames.get_frame_texture(names[0], 0) if count > 0 else null
	var size := Vector2i.ZERO if first == null else Vector2i(first.get_width(), first.get_height())
	var fps := frames.get_animation_speed(names[0])
	var speed := "%d" % int(fps) if is_equal_approx(fps, roundf(fps)) else "%.2f" % fps
	return "%dx%d px · %d frame%s · %s fps" % [size.x, size.y, count,
		"" if count == 1 else "s", speed]


## The project's newest result when the dock has none to show yet (after an editor start):
## rows are the daemon's generations of this project.
func show_newest(rows: Array) -> void:
	if _player.frame_count() > 0:
		return
	var newest := rows.duplicate()
	newest.sort_custom(func(a: Dictionary, b: Dictionary) -> bool:
		return String(a.get("created_at", "")) > String(b.get("created_at", "")))
	for row in newest:
		var resource: Variant = row.get("resource")
		if row.get("state") != "done" or resource == null:
			continue
		if show_result(String(resource), is_pixel_art(row)):
			return
