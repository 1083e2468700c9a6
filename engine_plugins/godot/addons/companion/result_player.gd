@tool
extends TextureRect
## Plays the first animation of a SpriteFrames in place, at its own speed, so the
## latest result is seen moving in the dock without opening a scene. Pixel art is drawn
## with the nearest texel (texture_filter nearest), as the game's own node should draw it;
## anything else as the dock draws.

var frames: SpriteFrames
var animation := &""
## Frames shown since the last play(); tests read it to see the result advance.
var shown := 0
var _index := 0
var _elapsed := 0.0


func play(resource: SpriteFrames, pixel_art := false) -> void:
	texture_filter = TEXTURE_FILTER_NEAREST if pixel_art else TEXTURE_FILTER_PARENT_NODE
	frames = resource
	var names := resource.get_animation_names() if resource != null else PackedStringArray()
	animation = StringName(names[0]) if not names.is_empty() else &""
	_index = 0
	_elapsed = 0.0
	shown = 0
	_show()


func stop() -> void:
	frames = null
	texture = null


func frame_count() -> int:
	return 0 if frames == null or animation == &"" else frames.get_frame_count(animation)


func _process(delta: float) -> void:
	var count := frame_count()
	if count == 0:
		return
	var speed := frames.get_animation_speed(animation)
	if speed <= 0.0:
		return
	_elapsed += delta
	var step := frames.get_frame_duration(animation, _index) / speed
	if _elapsed < step:
		return
	_elapsed -= step
	if _index + 1 < count or frames.get_animation_loop(animation):
		_index = (_index + 1) % count
		_show()


func _show() -> void:
	if frame_count() == 0:
		texture = null
		return
	texture = frames.get_frame_texture(animation, _index)
	shown += 1
