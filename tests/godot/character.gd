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
		var image := sprite.sprite_frames.get_frame_texture(sprite.animation, 0).get_image()
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
		found["clear"] = clear
		found["opaque"] = opaque
		found["size"] = [image.get_width(), image.get_height()]
	var file := FileAccess.open(args[0], FileAccess.WRITE)
	file.store_string(JSON.stringify(found))
	file.close()
	quit(0)
