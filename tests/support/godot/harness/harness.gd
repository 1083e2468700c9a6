@tool
extends EditorPlugin
## Drives the Animate dock the way a user would (fields set, buttons pressed) inside a
## real editor, records what the dock shows, writes it as JSON and quits the editor.
## The plan (a JSON file named by COMPANION_TEST_PLAN) gives the result file, a linked
## spelling of the project folder and the two handshake files for stopping the daemon.

var plan := {}
var out := {"steps": [], "quotes": []}
var dock: Node
var finishes: Array = []


func _enter_tree() -> void:
	var plan_file := OS.get_environment("COMPANION_TEST_PLAN")
	if plan_file == "":
		return
	plan = JSON.parse_string(FileAccess.get_file_as_string(plan_file))
	_run.call_deferred()


func _run() -> void:
	dock = await _find_dock()
	if dock == null:
		_done("no Animate dock in the editor")
		return
	dock.finished.connect(func(job: Dictionary) -> void: finishes.append(job))
	if plan.has("screenshot"):
		await _screenshot()
		if plan.has("screenshot_moves") and not out.has("failure"):
			await load("res://addons/companion_test_harness/moves.gd").new().run(self)
		_done("")
		return
	if plan.has("live"):
		await load("res://addons/companion_test_harness/live.gd").new().run(self)
		return
	if plan.has("studio"):
		await load("res://addons/companion_test_harness/studio.gd").new().run(self)
		return
	_show(dock)  # the Animate tab, opened as a user clicks it
	# Right after the dock asks for its scan, a change signal arrives that is not that
	# scan's (as an import or another plugin's scan would send): it must not be taken for
	# the new file being there.
	var filesystem := EditorInterface.get_resource_filesystem()
	dock._scan_timer.timeout.connect(func() -> void: filesystem.filesystem_changed.emit())
	await _until(func() -> bool: return dock._status_label.text != "", 20)
	await _until(func() -> bool: return dock._width.editable, 10)
	await _until(func() -> bool: return not dock._advanced.models.is_empty(), 10)
	out["status_label"] = dock._status_label.text
	out["limits"] = {
		"width": [dock._width.min_value, dock._width.max_value],
		"height": [dock._height.min_value, dock._height.max_value],
		"fps_max": dock._fps.max_value,
		"seconds": [dock._seconds.min_value, dock._seconds.max_value],
		"max_frames": dock.max_frames,
	}
	out["same_folder"] = dock.same_folder(plan["link"], dock.project_root())
	out["other_folder"] = dock.same_folder(plan["link"].get_base_dir(), dock.project_root())

	# 60 fps for 10 s is more frames than allowed: the dock says so with the quote.
	dock.set_image(plan["image"])
	# Untouched, Size shows the picture's own and Transparent what its pixels ask for,
	# and neither is sent: the daemon decides them, as for every other way in.
	var untouched: Dictionary = dock.request_body()
	out["picture_defaults"] = {"size": [dock._width.value, dock._height.value],
		"transparent": dock._advanced._transparent.button_pressed,
		"export": untouched["export"], "video": untouched["video"]}
	dock._prompt.text = "idle breathing"
	dock._fps.value = 60
	dock._seconds.value = 10
	await _quote()
	out["clamped_quote"] = dock._message.text
	out["clamped_frames"] = dock.request_body()["export"]["frame_count"]

	# The main job: quote, animate, over budget so approve, done, scan and selection.
	dock._prompt.text = "idle breathing"
	dock._width.value = 128
	dock._height.value = 128
	dock._fps.value = 8
	dock._seconds.value = 2
	await _quote()
	out["quote_message"] = dock._message.text
	out["animate_text"] = dock._animate_button.text
	var main := await _job(true, true)
	out["main"] = main
	await _until(func() -> bool: return dock.pending_resource == "", 30)
	await _settle()
	out["selected"] = EditorInterface.get_current_path()
	var edited := EditorInterface.get_inspector().get_edited_object()
	out["edited"] = edited.resource_path if edited is Resource else ""
	out["scans"] = dock.scans
	# The latest result plays in the dock; the chosen picture is shown.
	await _until(func() -> bool: return dock._result_player.shown >= 3, 10)
	out["result_playing"] = {
		"frames": dock._result_player.frame_count(),
		"shown": dock._result_player.shown,
		"caption": dock._result_caption.text,
	}
	var picture: Texture2D = dock._image_preview.texture
	out["picture_size"] = [0, 0] if picture == null else [picture.get_width(), picture.get_height()]
	# The quote was spent: Animate waits for a new one (a click on it does nothing), and
	# another image is only quoted.
	out["after_done"] = {
		"animate_disabled": dock._animate_button.disabled,
		"animate_text": dock._animate_button.text,
	}
	# The same settings quoted again: the main job made exactly this, so Animate is free
	# and pressing it answers that job (no new one is made, nothing is spent).
	await _quote()
	out["made_quote"] = _quote_seen()
	var pressed := await _job(false, false)
	out["made_pressed"] = {"job": pressed["job"], "finishes": pressed["finishes"],
		"message": pressed["message"], "approval": pressed.has("approval_message")}
	await _until(func() -> bool: return dock.pending_resource == "", 30)
	await _settle()
	# Other frames a second: local work on the kept clip, so the quote is free (a re-cut).
	dock._fps.value = 12
	await _quote()
	out["recut_quote"] = _quote_seen()
	dock._fps.value = 8
	dock.set_image(plan["other_image"])
	var still_disabled: bool = dock._animate_button.disabled
	await _quote()
	out["other_image"] = {
		"animate_disabled": still_disabled,
		"job_id": dock.job_id,
		"message": dock._message.text,
		"quoted": dock.quoted_credits,
		"quote_id": dock.quote_id,
	}
	# Any change of a setting drops the quote and disables Animate.
	dock._width.value = 96
	out["changed"] = {
		"animate_disabled": dock._animate_button.disabled,
		"animate_text": dock._animate_button.text,
		"quoted": dock.quoted_credits,
	}
	# Animate stays disabled until the change is priced: Quote, then it is enabled.
	await _quote()
	out["changed_then_quote"] = {"job_id": dock.job_id, "message": dock._message.text,
		"animate_enabled": not dock._animate_button.disabled}
	# A change that sent no signal (set from code): Animate sees the body is not the one
	# priced and quotes again instead of sending a stale quote.
	var priced_id: String = dock.quote_id
	dock._prompt.set_block_signals(true)
	dock._prompt.text = "changed without a signal"
	dock._prompt.set_block_signals(false)
	dock._message.text = ""
	_press(dock._animate_button)
	await _until(func() -> bool: return dock._message.text != "", 20)
	out["silent_change"] = {
		"job_id": dock.job_id,
		"message": dock._message.text,
		"new_quote": dock.quote_id != "" and dock.quote_id != priced_id,
	}
	dock.set_image(plan["image"])
	dock._width.value = 128

	# Cancel while the job waits for approval. The same picture quoted again with another
	# prompt: the dock says which files of the main job it replaces, before anything is paid.
	dock._prompt.text = "walk cycle"
	await _quote()
	out["replaces_quote"] = dock._message.text
	out["cancelled"] = await _job(false, false)

	# A job the service fails.
	dock._prompt.text = "sandbox:reject this"
	await _quote()
	out["failed"] = await _job(true, false)
	# A job that ends without error text: the daemon sends "error": null.
	dock.job_id = "job-without-text"
	dock._run.finish({"id": "job-without-text", "state": "cancelled", "error": null})
	out["null_error_message"] = dock._message.text
	finishes.pop_back()
	out["finishes"] = finishes.map(func(job: Dictionary) -> String: return job["state"])
	out["scans_at_end"] = dock.scans

	# Advanced options follow the chosen model, from the daemon's model listing.
	var advanced: Node = dock._advanced
	await _until(func() -> bool: return advanced.models.size() >= 2, 10)
	var toggle: CheckButton = dock.find_child("AdvancedToggle", true, false)
	toggle.button_pressed = true
	out["advanced_visible"] = advanced.visible  # the toggle shows it (the tab is not open)
	out["model_ids"] = advanced.models.keys()
	out["default_model"] = advanced.default_model
	out["per_model"] = {}
	for id in advanced.models:
		_choose(advanced._model, id)
		out["per_model"][id] = _advanced_rows()
	# Seconds holds only a length the model lists: 7 s, between 6 and 8, is not kept.
	_choose(advanced._model, advanced.default_model)
	dock._seconds.value = 6
	dock._seconds.value = 7
	var stepped_up: float = dock._seconds.value
	dock._seconds.value = 7
	out["seven"] = {
		"offered": dock._limits.lengths, "up": stepped_up, "down": dock._seconds.value,
		"tooltip": dock._seconds.tooltip_text,
	}
	# A model with a fixed seed, quoted: the request names both; a model change drops it.
	_choose(advanced._model, plan["lite_model"])
	advanced._fixed_seed.button_pressed = true
	advanced._seed.value = 42
	dock._seconds.value = 3
	dock._prompt.text = "idle"
	await _quote()
	out["lite_quote"] = {
		"message": dock._message.text,
		"credits": dock.quoted_credits,
		"video": dock.request_body()["video"],
	}
	_choose(advanced._model, advanced.default_model)
	out["model_change_dropped"] = dock.quoted_credits == -1 and dock._animate_button.disabled

	# The daemon stops: without Refresh the dock says so (its event stream closed) and
	# tells the user how to start it.
	FileAccess.open(plan["down_ready"], FileAccess.WRITE).store_string("ready")
	await _until(func() -> bool: return FileAccess.file_exists(plan["down_go"]), 30)
	var offline := func() -> bool:
		return dock._status_label.text.contains("not running") and dock._start_button.visible
	out["down_in_time"] = await _until(offline, 10)
	out["down_status"] = dock._status_label.text
	out["down_generations"] = _find("Generations", "select_row")._summary.text
	out["down_message"] = dock._message.text
	out["start_visible"] = dock._start_button.visible
	var generations := _find("Generations", "select_row")
	var listings_before: int = generations.listings
	# Start daemon runs the command from the editor settings; the dock connects by itself.
	EditorInterface.get_editor_settings().set_setting("companion/daemon/command", plan["command"])
	_press(dock._start_button)
	out["starting_message"] = dock._message.text
	await _until(func() -> bool: return not dock._status_label.text.contains("not running"), 60)
	out["started_pid"] = dock.launched_pid
	out["restarted_status"] = dock._status_label.text
	out["restarted_start_visible"] = dock._start_button.visible
	# The Generations tab lists this project's jobs again from the restarted daemon.
	await _until(func() -> bool: return generations.listings > listings_before, 20)
	out["listed_after_restart"] = generations.listings > listings_before
	out["generations"] = generations.rows.map(func(row: Dictionary) -> Dictionary:
		return {"state": row.get("state"), "name": row.get("name"), "id": row.get("id")})
	out["generations_summary"] = generations._summary.text
	var root: TreeItem = generations._list.get_root()
	out["generations_cells"] = root.get_children().map(func(item: TreeItem) -> Array:
		return range(generations.COLUMNS.size()).map(func(c: int) -> String: return item.get_text(c)))
	var done_index := -1
	for index in generations.rows.size():
		if generations.rows[index].get("state") == "done":
			done_index = index
	generations.select_row(done_index)
	await _until(func() -> bool: return generations._preview.shown >= 3, 10)
	out["generation_preview"] = {
		"frames": generations._preview.frame_count(),
		"shown": generations._preview.shown,
		"reveal_enabled": not generations._reveal_button.disabled,
	}
	# Generate again: the same settings, a new seed, quoted before anything is spent.
	_show(generations)
	dock._message.text = ""
	_press(generations._again_button)
	await _until(func() -> bool: return dock._message.text.begins_with("This will cost"), 20)
	var sent: Dictionary = dock.request_body()
	out["again"] = {
		"message": dock._message.text,
		"job_id": dock.job_id,
		"prompt": sent["prompt"],
		"image": sent["image_path"],
		"seed": sent["video"].get("seed", -1),
		"quote_id": dock.quote_id,
	}
	var listed_before: int = generations.listings
	_show(dock)  # back to the Animate tab, where Animate is
	var again_job := await _job(true, false)
	await _until(func() -> bool: return generations.listings > listed_before, 20)
	out["again"]["state"] = again_job["job"].get("state", "")
	out["again"]["listed"] = generations.rows[0].get("seed", -1)
	out["again"]["listed_id"] = generations.rows[0].get("id", "")
	out["again"]["job_id_done"] = again_job["job"].get("id", "")
	# Variations of the first job: the total is quoted first, then they are made.
	_show(generations)
	var original: String = out["main"]["job"]["id"]
	for index in generations.rows.size():
		if generations.rows[index].get("id") == original:
			generations.select_row(index)
	generations._variation_count.value = 3
	_press(generations._variations_button)
	await _until(func() -> bool: return generations.said.contains("variations cost"), 20)
	out["variations"] = {
		"said": generations.said,
		"button": generations._variations_button.text,
		"quote": generations.variations_quote,
		"count_range": [generations._variation_count.min_value, generations._variation_count.max_value],
	}
	var listed_now: int = generations.listings
	_press(generations._variations_button)
	await _until(func() -> bool: return generations.listings > listed_now, 20)
	out["variations"]["started"] = generations.said
	out["variations"]["listed"] = generations.rows.filter(
		func(row: Dictionary) -> bool: return row.get("parent") == original
	).map(func(row: Dictionary) -> Dictionary:
		return {"kind": row.get("kind"), "seed": row.get("seed"), "name": row.get("name")})
	_done("")


## As a user opens it: the Animate tab of the bottom panel, a picture chosen, one job
## done and playing; then the editor's window as it is on screen, saved as a PNG.
func _screenshot() -> void:
	get_tree().root.size = Vector2i(1600, 1000)
	# The tab a user clicks in the bottom bar.
	var plugin := _companion_plugin()
	if plugin == null:
		_done("the companion plugin is not in the editor")
		return
	plugin.make_bottom_panel_item_visible(dock)
	await _until(func() -> bool: return dock._width.editable, 20)
	dock.set_image(plan["image"])
	# Two names that share their first 7 letters, as a user names the moves of one hero:
	# the Generations list shows both in full.
	dock.get_node("%Name").text = "knight_dance"
	dock._prompt.text = "dance"
	dock._width.value = 128
	dock._height.value = 128
	dock._fps.value = 8
	await _until(func() -> bool: return dock._status_label.text.contains("balance"), 60)
	await _quote()
	out["first_quote"] = {"message": dock._message.text, "status": dock._status_label.text}
	if dock.quoted_credits < 0:
		_done("the first quote was not given: %s" % dock._message.text)
		return
	var first := await _job(true, false)
	out["first_job"] = first["job"]
	dock.get_node("%Name").text = "knight_idle"
	dock._prompt.text = "idle breathing, loop"
	await _quote()
	out["quote_message"] = dock._message.text
	# At the panel's default height the actions are in view, not below a scroll: their
	# rectangles lie inside the part of the dock the panel shows.
	out["quote_rect"] = _rect(dock._quote_button)
	out["animate_rect"] = _rect(dock._animate_button)
	out["prompt_rect"] = _rect(dock._prompt)
	out["visible_rect"] = _rect(dock.get_parent())
	out["dock_height"] = dock.size.y
	var job := await _job(true, false)
	await _until(func() -> bool: return dock._result_player.shown >= 3, 20)
	out["job"] = job["job"]
	out["result_info"] = dock.get_node("%ResultInfo").text
	out["tab_title"] = _companion_plugin().TAB_TITLE
	out["visible"] = dock.is_visible_in_tree()
	out["dock_rect"] = [dock.get_global_rect().position.x, dock.get_global_rect().position.y,
		dock.get_global_rect().size.x, dock.get_global_rect().size.y]
	out["picture_rect"] = _rect(dock._image_preview)
	out["result_rect"] = _rect(dock._result_player)
	for frame in 10:
		await get_tree().process_frame
	var shot := get_tree().root.get_texture().get_image()
	shot.save_png(plan["screenshot"])
	out["window"] = [shot.get_width(), shot.get_height()]
	# The Generations tab beside it: the job listed and playing, its re-cut form open
	# with the contact sheet of the kept video.
	var generations := _find("Generations", "select_row")
	plugin.make_bottom_panel_item_visible(generations)
	await _until(func() -> bool: return not generations.rows.is_empty(), 20)
	generations.select_row(0)
	_press(generations._recut_button)
	var form: Node = generations._recut
	await _until(func() -> bool: return not form._sheet_button.disabled, 20)
	_press(form._sheet_button)
	await _until(func() -> bool: return form._sheet.texture != null, 20)
	await _until(func() -> bool: return generations._preview.shown >= 3, 20)
	for frame in 10:
		await get_tree().process_frame
	get_tree().root.get_texture().get_image().save_png(plan["screenshot_generations"])
	out["list_rect"] = _rect(generations._list)
	out["preview_rect"] = _rect(generations._preview)
	out["sheet_rect"] = _rect(form._sheet)
	out["preview_visible"] = generations._preview.visible
	# Each name as the list shows it: its cell's width against the text's own.
	var font: Font = generations._list.get_theme_font("font")
	var font_size: int = generations._list.get_theme_font_size("font_size")
	out["names"] = []
	for index in generations.rows.size():
		var item: TreeItem = generations.item_of(index)
		out["names"].append({"text": item.get_text(2), "tooltip": item.get_tooltip_text(2),
			"column": generations._list.get_column_width(2),
			"needs": font.get_string_size(item.get_text(2), HORIZONTAL_ALIGNMENT_LEFT, -1,
				font_size).x})
	out["recut_open"] = generations._recut_panel.visible
	# The contact sheet zoomed: drawn twice as big, the panel scrolling to it.
	var before_zoom: Vector2 = form._sheet.size
	form.get_node("%Zoom").value = 2.0
	for frame in 5:
		await get_tree().process_frame
	out["zoom"] = [before_zoom.x, before_zoom.y, form._sheet.size.x, form._sheet.size.y]


func _rect(control: Control) -> Array:
	var rect := control.get_global_rect()
	return [rect.position.x, rect.position.y, rect.size.x, rect.size.y]


func _companion_plugin() -> EditorPlugin:
	for child in get_tree().root.find_children("", "EditorPlugin", true, false):
		if child.get("dock") == dock:
			return child
	return null


## Presses Animate, approves when asked (or cancels), overlaps poll ticks as a slow
## daemon would, and returns what the dock showed until the job ended.
func _job(approve: bool, burst: bool) -> Dictionary:
	var seen := {"progress": [], "messages": []}
	var before := finishes.size()
	_press(dock._animate_button)
	var ended := func() -> bool: return finishes.size() > before
	var deadline := Time.get_ticks_msec() + 60000
	var acted := false
	while not ended.call() and Time.get_ticks_msec() < deadline:
		if dock._approve_button.visible and not acted:
			acted = true
			seen["approval_message"] = dock._message.text
			_press(dock._approve_button if approve else dock._cancel_button)
		if burst and dock.job_id != "":
			for tick in 3:
				dock._poll_timer.timeout.emit()
		var value: float = dock._progress.value
		if seen["progress"].is_empty() or seen["progress"][-1] != value:
			seen["progress"].append(value)
		if seen["messages"].is_empty() or seen["messages"][-1] != dock._message.text:
			seen["messages"].append(dock._message.text)
		await get_tree().process_frame
	seen["progress"].append(dock._progress.value)  # as the job ended
	await _settle()
	seen["job"] = finishes[-1] if ended.call() else {}
	seen["message"] = dock._message.text
	seen["finishes"] = finishes.size() - before
	return seen


## Picks an item of a model list as a user does (select, then the selection signal).
func _choose(options: OptionButton, id: String) -> void:
	for index in options.item_count:
		if options.get_item_metadata(index) == id:
			options.select(index)
			options.item_selected.emit(index)


func _advanced_rows() -> Dictionary:
	var advanced: Node = dock._advanced
	return {
		"last_frame": advanced._last_frame_row.visible,
		"negative_prompt": advanced._negative_row.visible,
		"references": advanced._references_label.text if advanced._references_row.visible else "",
		"seed": advanced._seed_row.visible,
		"styles": advanced._style_row.visible,
		"style_items": advanced._style.item_count,
		"resolutions": advanced._resolution.item_count,
		"transparency": advanced._transparency_row.visible,
		"seconds": [dock._seconds.min_value, dock._seconds.max_value],
	}


## What the dock shows of its quote: the button, the line under it, the price and spend.
func _quote_seen() -> Dictionary:
	return {
		"animate_text": dock._animate_button.text,
		"message": dock._message.text,
		"credits": dock.quoted_credits,
		"spends": dock.quoted_spends,
	}


func _quote() -> void:
	dock._message.text = ""
	_press(dock._quote_button)
	await _until(func() -> bool: return dock._message.text != "", 120)  # a busy machine
	out["quotes"].append({"credits": dock.quoted_credits, "quote_id": dock.quote_id})


## A click as a user makes it, so only on a button they can see and that is enabled: a
## press anywhere else fails the run, saying which button, since a real click there does
## nothing.
func _press(button: Button) -> void:
	if button == null:
		_done("pressed a button that is not there")
		return
	var label := "%s \"%s\"" % [button.name, button.text]
	if not button.is_visible_in_tree():
		_done("pressed %s, which is not visible: a click there does nothing" % label)
	elif button.disabled:
		_done("pressed %s, which is disabled: a click there does nothing" % label)
	else:
		button.pressed.emit()


## Opens a tab of the bottom panel (Animate, Generations) as a user clicks it.
func _show(panel: Control) -> void:
	_companion_plugin().make_bottom_panel_item_visible(panel)


## Types into a line edit as a user does: focus, select what is there, then one key
## event a character through the editor's own input, so the field changes itself and
## sends text_changed as for real keystrokes (a frame later, as LineEdit sends it).
func _type(field: LineEdit, text: String) -> void:
	if not field.is_visible_in_tree() or not field.editable:
		_done("typed into %s, which is not visible or not editable" % field.name)
		return
	var heard := [false]
	var hear := func(_text: String) -> void: heard[0] = true
	field.text_changed.connect(hear)
	field.grab_focus()
	field.select_all()
	var keys: Array[InputEventKey] = []
	for character in text:
		var key := InputEventKey.new()
		key.unicode = character.unicode_at(0)
		keys.append(key)
	if text == "":  # emptied: the selection deleted
		var backspace := InputEventKey.new()
		backspace.keycode = KEY_BACKSPACE
		keys.append(backspace)
	for key in keys:
		for down in [true, false]:
			var event: InputEventKey = key.duplicate()
			event.pressed = down
			field.get_viewport().push_input(event)
	await _until(func() -> bool: return heard[0], 5)
	field.text_changed.disconnect(hear)
	if field.text != text:
		_done("typed \"%s\" into %s, which holds \"%s\"" % [text, field.name, field.text])


## A little time for anything late (a second finish, a stray poll) to show itself.
func _settle() -> void:
	var until := Time.get_ticks_msec() + 1500
	while Time.get_ticks_msec() < until:
		await get_tree().process_frame


func _until(condition: Callable, seconds: float) -> bool:
	var deadline := Time.get_ticks_msec() + int(seconds * 1000)
	while not condition.call():
		if Time.get_ticks_msec() > deadline:
			return false
		await get_tree().process_frame
	return true


func _find(node_name: String, method: String) -> Node:
	for node in EditorInterface.get_base_control().find_children(node_name, "", true, false):
		if node.has_method(method):
			return node
	return null


func _find_dock() -> Node:
	for attempt in 600:
		var found := EditorInterface.get_base_control().find_children("Animate", "", true, false)
		for node in found:
			if node.has_method("quote"):
				return node
		await get_tree().process_frame
	return null


func _done(failure: String) -> void:
	if out.has("failure"):
		return  # the first failure is the one to report; the run is already ending
	out["failure"] = failure
	var file := FileAccess.open(plan["results"], FileAccess.WRITE)
	file.store_string(JSON.stringify(out, "  "))
	file.close()
	get_tree().quit(0 if failure == "" else 1)
