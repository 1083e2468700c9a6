extends SceneTree
## Loads a trimmed SpriteFrames and the same animation untrimmed, as a game would, and
## puts each frame together the way Godot draws an AtlasTexture: a texture of its own
## width and height, the region's pixels at the margin's position (premultiplied).
## Arguments after "--": the result file, the trimmed .tres, the untrimmed .tres.


func _initialize() -> void:
	_run.call_deferred()


func _drawn(texture: Texture2D) -> Dictionary:
	var atlas := texture as AtlasTexture
	var whole := Image.create(texture.get_width(), texture.get_height(), false, Image.FORMAT_RGBA8)
	var sheet := atlas.atlas.get_image()
	sheet.convert(Image.FORMAT_RGBA8)
	whole.blit_rect(sheet, Rect2i(atlas.region), Vector2i(atlas.margin.position))
	# The importer's alpha border fix colours clear pixels beside opaque ones differently
	# in two sheets; what is drawn is the same, premultiplied.
	whole.premultiply_alpha()
	return {
		"size": [texture.get_width(), texture.get_height()],
		"image": whole,
		"region": [atlas.region.size.x, atlas.region.size.y]
	}


func _run() -> void:
	var args := OS.get_cmdline_user_args()
	var trimmed := ResourceLoader.load(args[1], "SpriteFrames") as SpriteFrames
	var plain := ResourceLoader.load(args[2], "SpriteFrames") as SpriteFrames
	var found := {"loaded": trimmed != null and plain != null, "frames": []}
	if found["loaded"]:
		var animation: StringName = trimmed.get_animation_names()[0]
		var plain_animation: StringName = plain.get_animation_names()[0]
		found["count"] = [
			trimmed.get_frame_count(animation), plain.get_frame_count(plain_animation)
		]
		for i in trimmed.get_frame_count(animation):
			var a := _drawn(trimmed.get_frame_texture(animation, i))
			var b := _drawn(plain.get_frame_texture(plain_animation, i))
			found["frames"].append(
				{
					"size": a["size"],
					"plain_size": b["size"],
					"region": a["region"],
					"same_pixels": a["image"].get_data() == b["image"].get_data()
				}
			)
	var file := FileAccess.open(args[0], FileAccess.WRITE)
	file.store_string(JSON.stringify(found))
	file.close()
	quit()
