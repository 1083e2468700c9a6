@tool
extends "res://addons/companion_test_harness/scenario.gd"
## The studio's controls driven as a user clicks them in a real editor (see harness.gd):
## a job with a last frame and a reference picked in the FileSystem, its quote with the
## balance and budget; in Generations a free re-cut with its range picked on the contact
## sheet, an import elsewhere, Remove files (cancelled, then confirmed), Show in file
## browser; then re-animating into a SpriteFrames the user extended, and a file the user
## changed kept (the free name the dock offered taken, then a name typed) or replaced only
## after the dock asked. A second editor start (plan "restart") finds the daemon away,
## says so, and lists the earlier jobs once it runs. Plan "paid_install" (a job id): that
## job was paid for but its files never went in; its row offers Install (free), which
## fails again while the folder is still a file and installs once the user fixed it.

var generations: Node


func run(harness: EditorPlugin) -> void:
	take(harness)
	generations = h._find("Generations", "select_row")
	if plan.has("restart"):
		await _restart()
		return
	if plan.has("paid_install"):
		await _paid_install()
		return
	h._show(dock)  # the Animate tab, opened as a user clicks it
	await h._until(func() -> bool: return dock._width.editable, 20)
	await h._until(func() -> bool: return not dock._advanced.models.is_empty(), 10)
	await _first_job()
	await _recut()
	await _import_remove_reveal()
	await _extended()
	await _replace()
	h._done("")


## Pickers used as a user does: select a file in the FileSystem, press the row's button.
func _first_job() -> void:
	var toggle: CheckButton = dock.find_child("AdvancedToggle", true, false)
	toggle.button_pressed = true
	dock.set_image(plan["image"])
	dock._prompt.text = "idle breathing"
	dock._width.value = 128
	dock._height.value = 128
	dock._fps.value = 8
	dock._seconds.value = 2
	var advanced: Node = dock._advanced
	EditorInterface.select_file(plan["last_frame"])
	await h._settle()
	h._press(advanced.find_child("LastFrameButton", true, false))
	EditorInterface.select_file(plan["reference"])
	await h._settle()
	h._press(advanced.find_child("ReferenceAdd", true, false))
	out["pickers"] = {
		"last_frame": advanced._last_frame_label.text,
		"references": advanced._references_label.text,
		"sent": dock.request_body(),
	}
	await h._quote()
	out["first_quote"] = {"message": dock._message.text, "button": dock._animate_button.text}
	var job: Dictionary = await h._job(false, false)
	out["first"] = job["job"]
	await h._until(func() -> bool: return _row_of(job["job"].get("id", "")) >= 0, 20)


func _row_of(id: String) -> int:
	for index in generations.rows.size():
		if generations.rows[index].get("id") == id:
			return index
	return -1


func _select(id: String) -> void:
	generations.select_row(_row_of(id))
	await h._settle()


## Re-cut: the form opened from the panel, the range picked on the contact sheet.
func _recut() -> void:
	h._show(generations)
	await _select(out["first"]["id"])
	# Use these settings brings the picked files back with the rest.
	dock._advanced.set_last_frame("")
	dock._advanced.clear_references()
	h._press(generations._use_button)
	out["used"] = {"last_frame": dock._advanced._last_frame_label.text,
		"references": dock._advanced._references_label.text, "fps": dock._fps.value,
		"sent": dock.request_body()}
	# A kept request with transparency brings it back, its key colour too; the plain one
	# (pressed again) turns it off.
	var keyed: Dictionary = generations.selected().get("settings", {}).duplicate(true)
	keyed["video"]["transparency"] = {
		"mode": "alpha_key", "key_color": "#ff00aa", "key_selection": "manual"}
	generations.use_settings.emit(keyed)
	var keyed_video: Dictionary = dock.request_body()["video"]
	h._press(generations._use_button)
	out["used_transparency"] = {"keyed": keyed_video.get("transparency", {}),
		"plain": dock.request_body()["video"].get("transparency", {})}
	h._press(generations._recut_button)
	var form: Node = generations._recut
	await h._until(func() -> bool: return form.generation.get("id") == out["first"]["id"], 10)
	await h._until(func() -> bool: return not form._recut_button.disabled, 10)
	out["recut_opened"] = {"visible": generations._recut_panel.visible, "title": form._title.text,
		"frames": form._frames.value, "clip_seconds": form.clip_seconds}
	h._press(form._sheet_button)
	await h._until(func() -> bool: return form._sheet.texture != null, 20)
	for frame in 5:
		await h.get_tree().process_frame  # laid out, so the cells have their place
	var sheet: Dictionary = form.sheet
	out["sheet"] = {"cells": sheet.get("cells", []).size(), "said": form.said,
		"texture": [form._sheet.texture.get_width(), form._sheet.texture.get_height()]
		if form._sheet.texture != null else []}
	_click(form, 1, false)
	_click(form, 6, true)
	var cells: Array = sheet.get("cells", [])
	out["picked"] = {
		"start": form._start.value,
		"end": form._end.value,
		"cell_1": cells[1]["source_time_seconds"] if cells.size() > 6 else -1,
		"cell_6": cells[6]["source_time_seconds"] if cells.size() > 6 else -1,
		"said": form.said,
	}
	form._frames.value = 6
	form._width.value = 96
	form._height.value = 96
	form._padding.value = 2
	form._pixel_art.button_pressed = true
	form._name.text = "hero_cut"
	# A format ticked through its box is asked for; unticked again before the re-cut.
	var gif: CheckBox = _format_box(form, "gif")
	gif.button_pressed = true
	out["recut_gif_formats"] = form.request_body()["export"]["output_formats"]
	gif.button_pressed = false
	out["recut_body"] = form.request_body()
	var before: int = generations.listings
	h._press(form._recut_button)
	await h._until(func() -> bool: return form.said.begins_with("Re-cut done") \
		or form.said.begins_with("The re-cut"), 60)
	out["recut"] = {"said": form.said}
	await h._until(func() -> bool: return generations.listings > before, 20)
	out["recut"]["listed"] = generations.rows[0].duplicate()
	# The selection stays on the generation re-cut (a second press re-cuts it again, not
	# another), and the re-cut's row sits under it naming it.
	await h._settle()
	out["recut"]["selected_after"] = generations.selected().get("id", "")
	out["recut"]["form_of"] = form.generation.get("id", "")
	var cut_item: TreeItem = generations.item_of(0)
	out["recut"]["cells"] = _cells(0)
	out["recut"]["under"] = generations.rows[cut_item.get_parent().get_metadata(0)].get("id", "") \
		if cut_item.get_parent() != generations._list.get_root() else ""
	# The user paints on the re-cut's sheet; the same re-cut again is refused, saying so,
	# and pressed once more it replaces it, theirs moved aside.
	var painted := Image.create(8, 8, false, Image.FORMAT_RGBA8)
	painted.fill(Color.BLUE)
	painted.save_png(ProjectSettings.globalize_path("res://animations/hero_cut.png"))
	await _select(out["first"]["id"])
	await h._until(func() -> bool: return not form._recut_button.disabled, 10)
	form._frames.value = 6
	form._width.value = 96
	form._height.value = 96
	form._padding.value = 2
	form._pixel_art.button_pressed = true
	form._name.text = "hero_cut"  # the whole clip this time: the form opened afresh
	h._press(form._recut_button)
	await h._until(func() -> bool: return form.refused_body != "", 20)
	out["recut_refused"] = form.said
	before = generations.listings
	h._press(form._recut_button)
	await h._until(func() -> bool: return form.said.begins_with("Re-cut done") \
		or form.said.begins_with("The re-cut"), 60)
	await h._until(func() -> bool: return generations.listings > before, 20)
	out["recut_replaced"] = {"said": form.said, "id": generations.rows[0].get("id")}


func _format_box(form: Node, format_name: String) -> CheckBox:
	for box in form.find_child("Formats", true, false).get_children():
		if box is CheckBox and box.text == format_name:
			return box
	return null


## A click on a cell of the contact sheet where it is drawn (Shift for the end).
func _click(form: Node, index: int, as_end: bool) -> void:
	var click := InputEventMouseButton.new()
	click.button_index = MOUSE_BUTTON_LEFT
	click.pressed = true
	click.shift_pressed = as_end
	click.position = form.cell_center(index)
	form._sheet.gui_input.emit(click)


func _import(folder: String) -> Dictionary:
	await _select(out["first"]["id"])
	generations._import_folder.text = folder
	generations.said = ""
	var before: int = generations.listings
	h._press(generations._import_button)
	await h._until(func() -> bool: return generations.said.begins_with("Imported") \
		or generations.said.begins_with("The import"), 60)
	await h._until(func() -> bool: return generations.listings > before, 20)
	return {"said": generations.said, "row": generations.rows[0].duplicate()}


func _import_remove_reveal() -> void:
	# Import again: into its own folder (the field left empty), then elsewhere.
	out["imported_home"] = await _import("")
	out["imported"] = await _import("res://elsewhere")
	var imported: Dictionary = out["imported"]["row"]
	# Remove files: asked first; Cancel keeps everything, then Remove takes only the
	# companion's own files.
	await _select(imported["id"])
	var files_before := _installed(generations.selected())
	h._press(generations._remove_button)
	await h.get_tree().process_frame
	var confirm: ConfirmationDialog = generations._confirm_remove
	out["remove_asked"] = {"visible": confirm.visible, "text": confirm.dialog_text}
	var said_before: String = generations.said
	h._press(confirm.get_cancel_button())
	await h._settle()  # time for a removal, were one sent
	var before: int = generations.listings
	h._press(generations.find_child("RefreshButton", true, false))
	await h._until(func() -> bool: return generations.listings > before, 20)
	var row := _row_of(imported["id"])
	out["remove_cancelled"] = {"visible": confirm.visible, "said_before": said_before,
		"said": generations.said, "files_before": files_before,
		"files": _installed(generations.rows[row] if row >= 0 else {}),
		"on_disk": files_before.filter(func(path: String) -> bool:
			return FileAccess.file_exists(path)),
		"cells": _cells(row), "selected": generations.selected().get("id", ""),
		"remove_enabled": not generations._remove_button.disabled}
	h._press(generations._remove_button)
	await h.get_tree().process_frame
	h._press(confirm.get_ok_button())
	await h._until(func() -> bool: return generations.said.begins_with("Removed"), 20)
	out["removed"] = {"said": generations.said,
		"tres_left": FileAccess.file_exists(ProjectSettings.globalize_path("res://elsewhere/hero.tres"))}
	# Show in file browser: the daemon names the folder; what opens it is recorded here,
	# so no file manager starts on a test machine.
	var opened: Array = []
	generations.open_folder = func(path: String) -> void: opened.append(path)
	await _select(out["first"]["id"])
	h._press(generations._reveal_button)
	await h._until(func() -> bool: return not opened.is_empty(), 20)
	out["revealed"] = {"opened": opened, "said": generations.said}


## The files a generation installed (as the daemon lists them) that are on disk.
func _installed(row: Dictionary) -> Array:
	var found := []
	for output in row.get("outputs", []):
		var path: Variant = output.get("installed_path")
		if path != null and FileAccess.file_exists(String(path)):
			found.append(String(path))
	return found


## What the Generations list shows in a row, column by column ([] without it).
func _cells(row: int) -> Array:
	if row < 0:
		return []
	var item: TreeItem = generations.item_of(row)
	return range(generations.COLUMNS.size()).map(func(c: int) -> String: return item.get_text(c))


## The user extends the SpriteFrames with Godot's own API and saves it; animating the
## same name again keeps their animation and the loop and speed they set.
func _extended() -> void:
	var path := "res://animations/hero.tres"
	var frames: SpriteFrames = ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE)
	frames.add_animation("wave")
	frames.add_frame("wave", load(plan["image"]))
	frames.add_frame("wave", load(plan["last_frame"]))
	frames.set_animation_speed("wave", 3.0)
	frames.set_animation_loop("hero", false)
	frames.set_animation_speed("hero", 5.0)
	frames.take_over_path(path)
	out["user_saved"] = ResourceSaver.save(frames, path)
	h._show(dock)
	dock._seconds.value = 1  # other frames: 8
	# In place (ticked for the Godot pack) and Loop go with the request: ticking Loop
	# drops a quote, as any setting sent does.
	var in_place: CheckBox = dock.find_child("InPlace", true, false)
	var loop: CheckBox = dock.find_child("Loop", true, false)
	out["finishing_defaults"] = [in_place.button_pressed, loop.button_pressed]
	await h._quote()
	loop.button_pressed = true
	out["loop_drops_quote"] = dock.quote_id == ""
	await h._quote()
	out["extended_quote"] = {"message": dock._message.text, "conflicts": dock.conflicts.size()}
	# As pixel art: once done, the dock has the kept video cut again (free) into it.
	var pixel: CheckBox = dock.find_child("PixelArt", true, false)
	pixel.button_pressed = true
	out["pixel_quote_kept"] = dock.quote_id != ""  # the price does not change with it
	var messages: Array = []
	var watch := func() -> void:
		if messages.is_empty() or messages[-1] != dock._message.text:
			messages.append(dock._message.text)
	h.get_tree().process_frame.connect(watch)
	var job: Dictionary = await h._job(false, false)
	h.get_tree().process_frame.disconnect(watch)
	# Once it landed, the dock plays it with the nearest filter.
	await h._until(func() -> bool: return dock.pending_resource == "", 30)
	out["pixel_player_filter"] = dock._result_player.texture_filter
	pixel.button_pressed = false
	loop.button_pressed = false
	out["extended"] = job["job"]
	out["extended_messages"] = messages
	out["extended_read"] = _animations(path)


func _animations(path: String) -> Dictionary:
	var frames := ResourceLoader.load(path, "", ResourceLoader.CACHE_MODE_IGNORE) as SpriteFrames
	if frames == null:
		return {}
	var found := {}
	for animation in frames.get_animation_names():
		found[animation] = {"count": frames.get_frame_count(animation),
			"loop": frames.get_animation_loop(animation),
			"speed": frames.get_animation_speed(animation)}
	return found


## The user paints on the sheet: the quote names it and the dock asks before replacing,
## offering the free name beside; taken once, then the default name replaced once.
func _replace() -> void:
	var painted := Image.create(8, 8, false, Image.FORMAT_RGBA8)
	painted.fill(Color.RED)
	painted.save_png(ProjectSettings.globalize_path("res://animations/hero.png"))
	dock._prompt.text = "idle breathing, again"
	await h._quote()
	var confirm: ConfirmationDialog = dock._confirm_replace
	var use_name: Button = dock._quote._use_name
	out["name_offered"] = {"visible": confirm.visible, "button": use_name.text,
		"shown": use_name.visible, "text": confirm.dialog_text}
	# First the free name: taken, it is quoted at once and lands beside the user's file.
	dock._message.text = ""
	h._press(use_name)
	await h._until(func() -> bool: return dock.quoted_credits >= 0, 20)
	out["name_taken"] = {"field": dock.find_child("Name", true, false).text,
		"quoted": JSON.parse_string(dock.quoted_body), "conflicts": dock.conflicts.size(),
		"asked": confirm.visible, "message": dock._message.text}
	out["named"] = (await h._job(false, false))["job"]
	await h._until(func() -> bool: return dock.pending_resource == "", 30)
	out["named_player_filter"] = dock._result_player.texture_filter  # not pixel art
	# A name of the user's own, typed into the Name box: typing drops the price shown (it
	# was for another name), and the quote, the job and its files take the typed name.
	var name_box: LineEdit = dock.find_child("Name", true, false)
	await h._quote()
	var priced: bool = dock.quoted_credits >= 0 and not dock._animate_button.disabled
	await h._type(name_box, "hero_walk")
	out["name_typed"] = {"priced": priced, "field": name_box.text,
		"dropped": dock.quoted_credits == -1 and dock._animate_button.disabled,
		"message": dock._message.text}
	await h._quote()
	out["name_typed"]["quoted"] = JSON.parse_string(dock.quoted_body)
	out["name_typed"]["conflicts"] = dock.conflicts.size()
	out["name_typed"]["quote_message"] = dock._message.text
	out["typed"] = (await h._job(false, false))["job"]
	# Then the default name again: the same question, and this time replace.
	dock.find_child("Name", true, false).text = ""
	await h._quote()
	out["replace_asked"] = {"visible": confirm.visible, "text": confirm.dialog_text,
		"message": dock._message.text, "conflicts": dock.conflicts.size()}
	# Refused first ("Keep mine"): nothing replaced, the quote dropped; quoted again, asked again.
	h._press(confirm.get_cancel_button())
	out["replace_refused"] = {"message": dock._message.text, "quote": dock.quote_id}
	await h._quote()
	out["replace_asked_again"] = confirm.visible
	h._press(confirm.get_ok_button())
	out["replace_agreed"] = {"agreed": dock.replace_agreed, "message": dock._message.text}
	var job: Dictionary = await h._job(false, false)
	out["replaced"] = job["job"]
	out["replaced_read"] = _animations("res://animations/hero.tres")


## A second editor start with the daemon away: the panel says so, then lists the jobs of
## the first start once the daemon runs again (the test starts it on the handshake).
func _restart() -> void:
	await h._until(func() -> bool: return dock._status_label.text.contains("not running"), 20)
	await h._until(func() -> bool: return generations._summary.text.begins_with("Offline"), 20)
	out["offline"] = {"status": dock._status_label.text, "generations": generations._summary.text,
		"start_visible": dock._start_button.visible}
	FileAccess.open(plan["down_ready"], FileAccess.WRITE).store_string("ready")
	await h._until(func() -> bool: return not generations.rows.is_empty(), 60)
	out["listed"] = generations.rows.map(func(row: Dictionary) -> Dictionary:
		return {"id": row.get("id"), "state": row.get("state"), "kind": row.get("kind")})
	out["listed_summary"] = generations._summary.text
	out["status_back"] = dock._status_label.text
	h._done("")


## The row of a job paid for whose files never went in offers Install (free), and only
## that row; pressed while its folder is still a file the install fails again, saying
## why; the user turns the file back into a folder and presses again: installed.
func _paid_install() -> void:
	var id: String = plan["paid_install"]
	h._show(generations)
	await h._until(func() -> bool: return _row_of(id) >= 0 and _row_of(plan["done"]) >= 0, 60)
	var button: Button = generations._install_button
	await _select(plan["done"])
	out["done_row"] = {"visible": button.is_visible_in_tree(), "cells": _cells(_row_of(plan["done"]))}
	# Selected while the editor may still be importing the project it just opened: it
	# plays once the editor has imported its frames (loading them before fails).
	var preview: TextureRect = generations._preview
	await h._until(func() -> bool: return preview.shown > 1, 30)
	out["done_row"]["preview"] = {"frames": preview.frame_count(), "shown": preview.shown,
		"size": [preview.texture.get_width(), preview.texture.get_height()]
			if preview.texture != null else []}
	await _select(id)
	var width: Dictionary = await _width()  # before any long message
	out["offered"] = {"visible": button.is_visible_in_tree(), "enabled": not button.disabled,
		"text": button.text, "tooltip": button.tooltip_text, "cells": _cells(_row_of(id)),
		"state_tooltip": generations.item_of(_row_of(id)).get_tooltip_text(1),
		"recut_enabled": not generations._recut_button.disabled,
		"import_enabled": not generations._import_button.disabled, "width": width}
	out["failed_again"] = await _install(id)
	DirAccess.remove_absolute(ProjectSettings.globalize_path(plan["folder"]))  # the user's fix
	out["installed"] = await _install(id)
	h._done("")


func _install(id: String) -> Dictionary:
	var button: Button = generations._install_button
	generations.said = ""
	h._press(button)
	await h._until(func() -> bool: return generations.said.begins_with("Installed") \
		or generations.said.begins_with("The install"), 60)
	var row := _row_of(id)
	var width: Dictionary = await _width()
	return {"said": generations.said, "summary": generations._summary.text,
		"selected": generations.selected().get("id", ""), "cells": _cells(row),
		"row": generations.rows[row].duplicate() if row >= 0 else {},
		"visible": button.is_visible_in_tree(), "enabled": not button.disabled,
		"recut_enabled": not generations._recut_button.disabled, "width": width}


## How wide the Generations panel is, and the least its Summary label asks for, with the
## label's wrap mode: a long message wraps instead of widening the panel past its buttons.
func _width() -> Dictionary:
	await h._settle()
	var summary: Label = generations._summary
	return {"panel": generations.size.x, "panel_min": generations.get_combined_minimum_size().x,
		"summary_min": summary.get_combined_minimum_size().x, "summary_width": summary.size.x,
		"summary_lines": summary.get_line_count(), "shown": summary.get_visible_line_count(),
		"autowrap": summary.autowrap_mode, "summary_tooltip": summary.tooltip_text}
