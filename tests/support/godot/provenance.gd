extends SceneTree
## Reads the provenance record a resource carries, as a game or a tool would: the
## resource's metadata. Arguments after "--": the result file, then res:// paths. For
## each it writes the resource's class, its animations (for SpriteFrames) and the
## "companion_provenance" metadata (null when it has none).


func _initialize() -> void:
	var args := OS.get_cmdline_user_args()
	var results := {}
	for path in args.slice(1):
		var resource := ResourceLoader.load(path)
		var found := {"class": "", "animations": [], "provenance": null}
		if resource != null:
			found["class"] = resource.get_class()
			if resource is SpriteFrames:
				found["animations"] = Array((resource as SpriteFrames).get_animation_names())
			found["provenance"] = resource.get_meta("companion_provenance", null)
		results[path] = found
	var out := FileAccess.open(args[0], FileAccess.WRITE)
	out.store_string(JSON.stringify(results))
	out.close()
	quit()
