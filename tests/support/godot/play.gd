extends SceneTree
## Plays SpriteFrames in an AnimatedSprite2D, as a game would (not the editor).
## Arguments after "--": the result file, then res:// paths. For each it writes the
## frame count, speed, frame sizes, whether every texture and atlas loaded, and the
## frames the sprite showed over about a second. A scene (.tscn) is instantiated instead:
## its root's type, texture filter and the SpriteFrames it shows.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var results := {}
	var sprites := {}
	for path in args.slice(1):
		var found := {"loaded": false}
		results[path] = found
		if path.ends_with(".tscn"):
			_read_scene(path, found)
			continue
		var frames := ResourceLoader.load(path, "SpriteFrames") as SpriteFrames
		if frames == null or frames.get_animation_names().is_empty():
			continue
		# The generated animation comes first, named after what it is (never "default").
		var played: StringName = frames.get_animation_names()[0]
		found["loaded"] = true
		found["name"] = String(played)
		# What the editor's missing-dependency dialog checks: every dependency exists.
		var deps := []
		for dependency in ResourceLoader.get_dependencies(path):
			var dep_path: String = dependency.get_slice("::", dependency.get_slice_count("::") - 1)
			if not dep_path.begins_with("res://"):
				dep_path = dependency.get_slice("::", 0)
			deps.append([dep_path, ResourceLoader.exists(dep_path)])
		found["dependencies"] = deps
		# Every animation with its own settings (a user's added ones too).
		found["animations"] = {}
		for animation in frames.get_animation_names():
			found["animations"][animation] = {
				"count": frames.get_frame_count(animation),
				"loop": frames.get_animation_loop(animation),
				"speed": frames.get_animation_speed(animation),
			}
		found["count"] = frames.get_frame_count(played)
		found["speed"] = frames.get_animation_speed(played)
		found["loop"] = frames.get_animation_loop(played)
		var sizes := []
		var atlases := {}
		var missing := 0
		var clipped := true
		for i in found["count"]:
			var texture := frames.get_frame_texture(played, i)
			if texture == null or texture.get_width() <= 0:
				missing += 1
				continue
			sizes.append([texture.get_width(), texture.get_height()])
			if texture is AtlasTexture:
				clipped = clipped and texture.filter_clip
				if texture.atlas == null or texture.atlas.get_width() <= 0:
					missing += 1
				else:
					atlases[texture.atlas.resource_path] = [
						texture.atlas.get_width(), texture.atlas.get_height()
					]
		found["missing"] = missing
		found["sizes"] = sizes.reduce(
			func(acc: Array, size: Array) -> Array: return acc if size in acc else acc + [size], []
		)
		found["atlases"] = atlases
		found["filter_clip"] = clipped
		var sprite := AnimatedSprite2D.new()
		sprite.sprite_frames = frames
		root.add_child(sprite)
		sprite.play(played)
		sprites[path] = sprite
		found["shown"] = [sprite.frame]
	var until := Time.get_ticks_msec() + 1200
	while Time.get_ticks_msec() < until:
		await process_frame
		for path in sprites:
			var shown: Array = results[path]["shown"]
			if shown[-1] != sprites[path].frame:
				shown.append(sprites[path].frame)
	for path in sprites:
		results[path]["playing"] = sprites[path].is_playing()
	var file := FileAccess.open(args[0], FileAccess.WRITE)
	file.store_string(JSON.stringify(results, "  "))
	file.close()
	quit(0)


func _read_scene(path: String, found: Dictionary) -> void:
	var packed := ResourceLoader.load(path, "PackedScene") as PackedScene
	var node := packed.instantiate() if packed != null else null
	if not node is CanvasItem:
		return
	found["loaded"] = true
	found["type"] = node.get_class()
	found["nearest"] = node.texture_filter == CanvasItem.TEXTURE_FILTER_NEAREST
	found["texture_filter"] = node.texture_filter
	if node is AnimatedSprite2D and node.sprite_frames != null:
		found["sprite_frames"] = node.sprite_frames.resource_path
	node.free()
