extends SceneTree
## Loads a character's SpriteFrames and plays its scene, as a game would.
## Arguments after "--": the result file, the SpriteFrames' and the scene's res:// paths.
## Writes every animation with its loop, speed and frame count, and what the scene's
## AnimatedSprite2D did over about a second: the animation it played, the frames it
## showed, and how many pixels of its first frame are clear and opaque.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var found := {"animations": {}}
	var frames := ResourceLoader.load(args[1], "SpriteFrames") as SpriteFrames
	if frames != null:
		for animation in frames.get_animation_names():
			found["animations"][animation] = {
				"count": frames.get_frame_count(animation),
				"loop": frames.get_animation_loop(animation),
				"speed": frames.get_animation_speed(animation),
			}
	var packed := ResourceLoader.load(args[2], "PackedScene") as PackedScene
	var sprite: AnimatedSprite2D = null
	if packed != null:
		sprite = packed.instantiate() as AnimatedSprite2D
	if sprite != null:
		root.add_child(sprite)
		await process_frame
		found["animation"] = String(sprite.animation)
		found["shown"] = [sprite.frame]
		var until := Time.get_ticks_msec() + 1200
		while Time.get_ticks_msec() < until:
			await process_frame
			if found["shown"][-1] != sprite.frame:
				found["shown"].append(sprite.frame)
		found["playing"] = sprite.is_playing()
		# A trimmed frame is an AtlasTexture whose margins give back the frame's place: its
		# image is the region alone, its size the frame's as drawn.
		var texture := sprite.sprite_frames.get_frame_texture(sprite.animation, 0)
		var image := texture.get_image()
		image.convert(Image.FORMAT_RGBA8)
		var clear := 0
		var opaque := 0
		for y in image.get_height():
			for x in image.get_width():
				var alpha := image.get_pixel(x, y).a
				if alpha == 0.0:
					clear += 1
				elif alpha == 1.0:
					opaque += 1
		var margins := texture.get_width() * texture.get_height()
		margins -= image.get_width() * image.get_height()
		found["clear"] = clear + margins
		found["opaque"] = opaque
		found["size"] = [texture.get_width(), texture.get_height()]
		var sizes := {}
		for name in sprite.sprite_frames.get_animation_names():
			for index in sprite.sprite_frames.get_frame_count(name):
				var frame := sprite.sprite_frames.get_frame_texture(name, index)
				sizes[str([frame.get_width(), frame.get_height()])] = true
		found["sizes"] = sizes.keys()
	var file := FileAccess.open(args[0], FileAccess.WRITE)
	file.store_string(JSON.stringify(found))
	file.close()
	quit(0)
