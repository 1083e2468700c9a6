@tool
extends "res://addons/companion_test_harness/scenario.gd"
## A character's moves and a batch of pictures in the real editor (see harness.gd), in the
## same editor run as the docs screenshots: moves added from the common list, one
## removed, a prompt typed, the set quoted (each move's price and the total), Animate all
## pressed once, each move followed to its end; the same set quoted again (every move 0,
## already made); one move made again alone; the Generations list grouping the moves;
## the Moves list and the character's scene playing saved as screenshots; then two
## pictures animated as one batch with one quote and one cap. The balance is read from
## the daemon before and after each paid press.

var moves: Node


func run(harness: EditorPlugin) -> void:
	take(harness)
	moves = h._companion_plugin().character
	h._show(dock)
	# Use selected with one picture selected in the FileSystem: that picture, no batch.
	EditorInterface.select_file(plan["image"])
	await h.get_tree().process_frame
	h._press(dock.get_node("%UseSelectedButton"))
	out["use_selected"] = {"image": dock.image_path, "batch": dock.batch.active()}
	dock.get_node("%Name").text = "hero"
	h._show(moves)  # the Character tab, as a user clicks it
	out["moves_picture"] = moves.picture_label.text
	for row in moves.rows():
		moves.remove_move(row)
	for move_name in ["idle", "walk", "attack", "jump"]:
		_choose(move_name)
		h._press(moves.add_button)
	var jump: Node = moves.rows()[3]
	h._press(jump.remove)
	await h.get_tree().process_frame
	var attack: Node = moves.rows()[2]
	await h._type(attack.prompt, "sword slash, one swing")
	out["moves_list"] = moves.rows().map(func(row: Node) -> Dictionary: return row.move())
	out["moves_quoted_before"] = moves.total

	# The set's quote: each move's price on its row, the total on Animate all.
	await _quote_set()
	out["moves_quote"] = _seen()
	await _shoot(plan["screenshot_moves"])
	out["moves_rect"] = h._rect(moves)
	var before := await _balance()
	var quoted: int = moves.total
	await _animate_all()
	out["moves_done"] = _seen()
	out["moves_money"] = {"before": before, "after": await _balance(), "total": quoted}
	var frames: Resource = await _loaded("res://animations/hero.tres")
	out["moves_frames"] = {}
	if frames is SpriteFrames:
		for anim in frames.get_animation_names():
			out["moves_frames"][anim] = {"count": frames.get_frame_count(anim),
				"loop": frames.get_animation_loop(anim)}

	# Quoted again: every move was made already, so nothing is spent.
	await _quote_set()
	out["moves_again_quote"] = _seen()

	# One move made again alone: priced first on its button, then made and paid.
	var walk: Node = moves.rows()[1]
	moves.said = ""
	h._press(walk.remake)
	await h._until(func() -> bool: return moves.said != "", 60)
	out["remake_quote"] = {"said": moves.said, "button": walk.remake.text}
	var paid_before := await _balance()
	h._press(walk.remake)
	var remade := func() -> bool:
		return walk.job_id != "" and walk.state in ["done", "failed", "cancelled"]
	await h._until(remade, 120)
	await h._until(func() -> bool: return moves.said.contains("moves done"), 60)
	out["remade"] = {"state": walk.state, "said": moves.said,
		"spent": paid_before - await _balance()}

	# The Generations list groups the character's moves under one item.
	var generations: Node = h._find("Generations", "select_row")
	var listed: int = generations.listings
	generations.refresh()
	await h._until(func() -> bool: return generations.listings > listed, 20)
	out["grouped"] = []
	for item: TreeItem in generations._list.get_root().get_children():
		if item.get_text(1) == "character":
			out["grouped"].append({"name": item.get_text(2), "moves": item.get_children().map(
				func(child: TreeItem) -> String: return child.get_text(2))})

	h._show(moves)
	await _scene_playing()
	await _batch()


func _choose(move_name: String) -> void:
	for index in moves.common.item_count:
		if moves.common.get_item_text(index) == move_name:
			moves.common.select(index)
			moves.common.item_selected.emit(index)


func _quote_set() -> void:
	moves.said = ""
	h._press(moves.quote_button)
	await h._until(func() -> bool: return moves.said != "", 120)


## Presses Animate all once (over the budget, that press is the approval) and waits for
## every move to end; no move waits for an approval of its own.
func _animate_all() -> void:
	var finishes: int = h.finishes.size()
	h._press(moves.animate_button)
	var waited := false
	var deadline := Time.get_ticks_msec() + 180000
	while h.finishes.size() == finishes and Time.get_ticks_msec() < deadline:
		waited = waited or moves.rows().any(func(row: Node) -> bool:
			return row.state == "awaiting_approval")
		await h.get_tree().process_frame
	out["moves_waited"] = waited


func _seen() -> Dictionary:
	return {"said": moves.said, "animate": moves.animate_button.text,
		"prices": moves.rows().map(func(row: Node) -> String: return row.price.text),
		"states": moves.rows().map(func(row: Node) -> String: return row.state),
		"progress": moves.rows().map(func(row: Node) -> float: return row.progress.value),
		"loops": moves.rows().map(func(row: Node) -> bool: return row.loop.button_pressed)}


## The balance as the daemon reads it from the service (the sandbox's account).
func _balance() -> int:
	var reply: Dictionary = await dock.client.call_api(HTTPClient.METHOD_GET, "/api/v1/status")
	return int(reply["data"].get("balance", -1)) if reply["ok"] else -1


## A resource the daemon wrote, once the editor's filesystem lists it and has imported
## every file it uses (its sheets).
func _loaded(path: String) -> Resource:
	var filesystem := EditorInterface.get_resource_filesystem()
	await h._until(func() -> bool: return not filesystem.is_scanning(), 30)
	filesystem.scan()
	await h._until(func() -> bool: return filesystem.get_file_type(path) != "", 30)
	var uses := Array(ResourceLoader.get_dependencies(path)).map(func(dep: String) -> String:
		return dep.get_slice("::", dep.get_slice_count("::") - 1))
	await h._until(func() -> bool: return not filesystem.is_scanning() and uses.all(
		func(used: String) -> bool: return ResourceLoader.exists(used)), 60)
	return load(path) if ResourceLoader.exists(path) else null


func _shoot(path: String) -> void:
	for frame in 10:
		await h.get_tree().process_frame
	h.get_tree().root.get_texture().get_image().save_png(path)


## The character's scene open in the 2D editor, its sprite playing the walk.
func _scene_playing() -> void:
	var scene := "res://animations/hero.tscn"
	await _loaded(scene)
	EditorInterface.open_scene_from_path(scene)
	EditorInterface.set_main_screen_editor("2D")
	await h._until(func() -> bool: return EditorInterface.get_edited_scene_root() != null, 20)
	var root := EditorInterface.get_edited_scene_root()
	var sprite: AnimatedSprite2D = root if root is AnimatedSprite2D \
		else root.find_children("", "AnimatedSprite2D", true, false).front()
	out["scene"] = {"root": root.get_class(), "autoplay": sprite.autoplay,
		"animations": Array(sprite.sprite_frames.get_animation_names())}
	sprite.play("walk")
	var shown := {}
	await h._until(func() -> bool:
		shown[sprite.frame] = true
		return shown.size() >= 3, 30)
	out["scene"]["frames_shown"] = shown.size()
	out["scene"]["playing"] = sprite.is_playing()
	await _shoot(plan["screenshot_scene"])
	sprite.stop()


## Two pictures selected in the FileSystem, animated as a batch: one quote (each
## picture's price and the total), Animate once (the batch approved as a whole).
func _batch() -> void:
	h._show(dock)
	var menu: RefCounted = h._companion_plugin().context_menu
	dock._message.text = ""
	menu._on_batch(PackedStringArray(plan["batch"]))
	await h._until(func() -> bool: return dock._message.text.contains("Batch of"), 120)
	out["batch_quote"] = {"message": dock._message.text, "animate": dock._animate_button.text,
		"label": dock.get_node("%ImageLabel").text, "total": int(dock._batch.quote.get(
			"spends_total", -1))}
	var before := await _balance()
	var finishes: int = h.finishes.size()
	h._press(dock._animate_button)
	await h._until(func() -> bool: return h.finishes.size() > finishes, 180)
	out["batch"] = {"message": dock._message.text, "spent": before - await _balance(),
		"jobs": dock._batch.ended.map(func(job: Dictionary) -> Array:
			return [job.get("name"), job.get("state"), job.get("resource")])}
