@tool
extends HBoxContainer
## This project's generations, newest first, as the daemon keeps them (across editor and
## daemon restarts): state, name, cost, prompt, model and seed where the daemon gives
## them, and when. The selected one plays beside the list.

## The user asked to fill the form with a generation's settings (its request as JSON).
signal use_settings(settings: Dictionary)
## The user asked for the same settings with a new seed.
signal again(settings: Dictionary)
## Files of the project changed (a re-cut, an import, files removed): the editor rescans.
signal files_changed

const Rows := preload("res://addons/companion/generation_rows.gd")
const ResultLanding := preload("res://addons/companion/result_landing.gd")
const COLUMNS := Rows.COLUMNS
const PAID_NOT_INSTALLED := Rows.PAID_NOT_INSTALLED
## Shown while the daemon does not answer; the list comes back by itself when it does.
const OFFLINE := "Offline: the companion daemon is not running (see the Companion tab). " \
	+ "This list shows again once it runs."

var client: Node
var project_root := ""
## What the list shows, newest first.
var rows: Array[Dictionary] = []
## How many times the list was filled from the daemon.
var listings := 0
## The daemon's quote for variations of the selected generation ({} when none), and
## what the last action said.
var variations_quote := {}
var said := ""
## What Show in file browser opens a folder with (the system's file manager).
var open_folder := func(path: String) -> void: OS.shell_show_in_file_manager(path)
## The folder the daemon last named for Show in file browser.
var revealed := ""

## The selected generation's SpriteFrames, waiting for the editor to import its files
## before it plays ("" when none waits).
var _to_preview := ""
## Whether the waiting one was cut as pixel art (played with the nearest filter).
var _preview_pixel_art := false

@onready var _list: Tree = %List
@onready var _summary: Label = %Summary
@onready var _preview: TextureRect = %Preview
@onready var _install_button: Button = %InstallButton
@onready var _use_button: Button = %UseButton
@onready var _reveal_button: Button = %RevealButton
@onready var _again_button: Button = %AgainButton
@onready var _variation_count: SpinBox = %VariationCount
@onready var _variations_button: Button = %VariationsButton
@onready var _recut_button: Button = %RecutButton
@onready var _recut_panel: Control = %RecutPanel
@onready var _recut: VBoxContainer = %RecutForm
@onready var _import_button: Button = %ImportButton
@onready var _import_folder: LineEdit = %ImportFolder
@onready var _remove_button: Button = %RemoveButton
@onready var _confirm_remove: ConfirmationDialog = %ConfirmRemove


func _ready() -> void:
	Rows.setup(_list)
	_list.item_selected.connect(_show_selected)
	%RefreshButton.pressed.connect(refresh)
	_install_button.pressed.connect(install_paid)
	_use_button.pressed.connect(func() -> void: use_settings.emit(selected().get("settings", {})))
	_reveal_button.pressed.connect(reveal)
	_again_button.pressed.connect(func() -> void: again.emit(selected().get("settings", {})))
	_variations_button.pressed.connect(variations)
	_variation_count.value_changed.connect(func(_v: float) -> void: _drop_variations())
	_recut_button.pressed.connect(open_recut)
	_recut.finished.connect(func(_job: Dictionary) -> void:
		files_changed.emit()
		refresh())
	_import_button.pressed.connect(import_files)
	_remove_button.pressed.connect(ask_remove)
	_confirm_remove.confirmed.connect(remove_files)


## Asks the daemon for this project's generations (GET /api/v1/generations); a daemon
## without that route gives its job list, narrowed to this project's folder.
func refresh() -> void:
	if client == null:
		return
	_recut.client = client
	if _variation_count.max_value <= _variation_count.min_value:
		await _variation_bounds()  # once: the daemon's bounds before the user picks a count
	var query := "/api/v1/generations?project=%s" % project_root.uri_encode()
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, query)
	var found: Array = []
	if reply["ok"]:
		found = reply["data"].get("data", [])
	elif reply["status"] == 404:
		var jobs: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/jobs")
		if not jobs["ok"]:
			_show_summary(jobs["message"])
			return
		var inside := project_root.simplify_path().trim_suffix("/") + "/"
		for job in jobs["data"].get("data", []):
			if String(job.get("target_dir", "")).simplify_path().begins_with(inside):
				found.append(job)
	elif reply["status"] == 0:
		show_offline()
		return
	else:
		_show_summary(reply["message"])
		return
	# The row selected, by its id, read before rows change: the list's items still index
	# the old rows (read after, a new re-cut at the top moved the selection to it).
	var kept := String(selected().get("id", ""))
	rows.clear()
	for item in found:
		rows.append(item)
	rows.sort_custom(func(a: Dictionary, b: Dictionary) -> bool:
		return String(a.get("created_at", "")) > String(b.get("created_at", "")))
	_fill(kept)


## The daemon is away: the panel says so (the list stays as it was until it is back).
func show_offline() -> void:
	_show_summary(OFFLINE)


func _fill(kept: String) -> void:
	listings += 1
	Rows.fill(_list, rows)
	_show_summary("%d generation%s of this project, newest first" % [
		rows.size(), "" if rows.size() == 1 else "s"])
	for button in _row_buttons():
		button.disabled = true
	_install_button.visible = false
	_drop_variations()
	_variations_button.disabled = true
	for index in rows.size():  # the row the user had selected stays selected
		if kept != "" and rows[index].get("id") == kept:
			select_row(index)


func selected() -> Dictionary:
	var index := Rows.selected_index(_list)
	return rows[index] if index >= 0 and index < rows.size() else {}


## Selects a row (an index of rows) as the user clicks it.
func select_row(index: int) -> void:
	var item := item_of(index)
	if item != null:
		_list.set_selected(item, 0)
		_list.scroll_to_item(item)


## The list's item showing rows[index] (a re-cut's is under its generation's).
func item_of(index: int) -> TreeItem:
	return Rows.item_of(_list, index)


## Plays the selected generation once the editor has imported every file its
## SpriteFrames uses. Loading it before (while the editor scans a project it just opened,
## or a job's files it was just told of) fails with an error and shows nothing, so until
## then it waits for the editor's filesystem to change.
func _preview_when_imported() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if _to_preview != "" and (filesystem.is_scanning() or not _imported(_to_preview)):
		if not filesystem.filesystem_changed.is_connected(_preview_when_imported):
			filesystem.filesystem_changed.connect(_preview_when_imported)
		return
	if filesystem.filesystem_changed.is_connected(_preview_when_imported):
		filesystem.filesystem_changed.disconnect(_preview_when_imported)
	if _to_preview == "":
		return
	var loaded := load(_to_preview)
	_to_preview = ""
	if loaded is SpriteFrames:
		_preview.play(loaded, _preview_pixel_art)


## The resource and every file it uses can be loaded now.
static func _imported(resource: String) -> bool:
	if not ResourceLoader.exists(resource):
		return false
	for dependency in ResourceLoader.get_dependencies(resource):
		# "uid://…::Type::res://path", or the path alone
		var path := dependency.get_slice("::", dependency.get_slice_count("::") - 1)
		if not ResourceLoader.exists(path):
			return false
	return true


func _show_selected() -> void:
	var row := selected()
	var resource := String(row.get("resource", "")) if row.get("resource") != null else ""
	_preview.stop()
	_to_preview = resource if row.get("state") == "done" else ""
	_preview_pixel_art = ResultLanding.is_pixel_art(row)
	_preview_when_imported()
	_use_button.disabled = typeof(row.get("settings")) != TYPE_DICTIONARY
	_again_button.disabled = _use_button.disabled
	_variations_button.disabled = _use_button.disabled
	_drop_variations()
	var placed := String(row.get("target_dir", "")) != "" if row.get("target_dir") != null else false
	_reveal_button.disabled = not placed
	_remove_button.disabled = not placed
	# Paid for, its files never went in: installing them is free, and re-cutting or
	# importing it is refused until they are.
	var installable := bool(row.get("installable", false))
	_install_button.visible = installable
	_install_button.disabled = not installable
	var clip: Variant = row.get("clip")
	var kept := typeof(clip) == TYPE_DICTIONARY and bool(clip.get("kept", false))
	_recut_button.disabled = not (kept and placed) or installable
	_import_button.disabled = not (kept and placed) or installable
	if _recut_panel.visible and not _recut_button.disabled:
		_recut.open(row)
	elif _recut_button.disabled:
		_recut_panel.visible = false
	_preview.visible = not _recut_panel.visible  # the form's contact sheet shows it then


func _row_buttons() -> Array[Button]:
	return [_install_button, _use_button, _again_button, _reveal_button, _recut_button,
		_import_button, _remove_button]


## How many variations the daemon takes at once, from its own API description.
func _variation_bounds() -> void:
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/openapi.json")
	if not reply["ok"]:
		return
	var schemas: Dictionary = reply["data"].get("components", {}).get("schemas", {})
	for schema_name in schemas:
		var count: Dictionary = schemas[schema_name].get("properties", {}).get("count", {})
		if String(schema_name).to_lower().begins_with("variation") and count.has("maximum"):
			_variation_count.min_value = float(count.get("minimum", 2))
			_variation_count.max_value = float(count["maximum"])
			return


func _drop_variations() -> void:
	variations_quote = {}
	if _variations_button != null:
		_variations_button.text = "Variations"


## First press: the daemon quotes N variations (the total is shown on the button);
## second press: they are made with that quote. Nothing is spent before the total is seen.
func variations() -> void:
	var row := selected()
	if row.is_empty():
		return
	var path := "/api/v1/generations/%s/variations" % String(row["id"])
	var count := int(_variation_count.value)
	if variations_quote.is_empty():
		var quoted: Dictionary = await client.call_api(
			HTTPClient.METHOD_POST, path, {"count": count, "quote_only": true}
		)
		if not quoted["ok"]:
			_say(quoted["message"])
			return
		variations_quote = quoted["data"]
		var total := int(variations_quote.get("credits_total", 0))
		_variations_button.text = "Make %d (%d credits)" % [count, total]
		_say("%d variations cost %d credits in all (%d each). Press Make to go ahead."
			% [count, total, int(variations_quote.get("credits_each", 0))])
		return
	var body := {
		"count": int(variations_quote.get("count", count)),
		"quote_id": variations_quote.get("quote_id", ""),
		"seeds": variations_quote.get("seeds", []),
	}
	_drop_variations()
	var made: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, body)
	if not made["ok"]:
		_say(made["message"])
		return
	_say("%d variations started." % made["data"].get("data", []).size())
	refresh()


func _say(text: String) -> void:
	said = text
	_show_summary(text)


## The Summary wraps (a long error keeps the panel's width) and shows its first lines;
## all of it is in its tooltip.
func _show_summary(text: String) -> void:
	_summary.text = text
	_summary.tooltip_text = text


## Opens the generation's folder, as the daemon names it, in the system's file browser.
func reveal() -> void:
	var row := selected()
	if row.is_empty():
		return
	var path := "/api/v1/generations/%s/reveal" % String(row["id"])
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, path)
	if not reply["ok"]:
		_say(reply["message"])
		return
	revealed = String(reply["data"].get("path", ""))
	open_folder.call(revealed)
	_say("Shown in the file browser: %s" % revealed)


## The re-cut form beside the list, for the selected generation.
func open_recut() -> void:
	var row := selected()
	if row.is_empty():
		return
	_recut_panel.visible = true
	_preview.visible = false  # room for the list beside the form; its sheet shows the frames
	await _recut.open(row)


## Its files made again from the kept video (free): into its own folder, or the one typed.
func import_files() -> void:
	var row := selected()
	if row.is_empty():
		return
	var body := {}
	var folder := _import_folder.text.strip_edges()
	if folder != "":
		var local := ProjectSettings.localize_path(folder)
		body["target_folder"] = local.trim_prefix("res://")
	var path := "/api/v1/generations/%s/import" % String(row["id"])
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, body)
	if not reply["ok"]:
		_say(reply["message"])
		return
	_say("Importing (free)...")
	var job: Dictionary = await client.wait_job(String(reply["data"]["id"]))
	if job.get("state") == "done":
		_say("Imported, nothing spent: %s" % String(job.get("resource", job.get("target_dir", ""))))
	else:
		_say("The import %s: %s" % [job.get("state", ""), String(job.get("error", ""))])
	files_changed.emit()
	refresh()


## Paid for already, its files never went in (a full disk, a folder that could not be
## written, a cancel while downloading): the daemon fetches and installs them again
## (POST /api/v1/jobs/{id}/retry), nothing spent, nothing made again.
func install_paid() -> void:
	var row := selected()
	if row.is_empty():
		return
	var path := "/api/v1/jobs/%s/retry" % String(row["id"])
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	if not reply["ok"]:
		_say(reply["message"])
		return
	_install_button.disabled = true  # one install at a time
	_say("Installing (free)...")
	var job: Dictionary = await client.wait_job(String(reply["data"].get("id", row["id"])))
	var text := ""
	if job.get("state") == "done":
		var where: Variant = job.get("resource")
		if where == null or String(where) == "":
			where = job.get("target_dir", "")
		text = "Installed, nothing spent: %s" % String(where)
	else:
		# The daemon's error goes on to name command-line fixes and asset ids (the State
		# cell's tooltip keeps all of it); here its first sentence says what to fix.
		var why: Variant = job.get("error")
		var first := "" if why == null else String(why).get_slice(". ", 0)
		text = "The install %s, nothing spent: %s" % [job.get("state", ""), first]
	files_changed.emit()
	await refresh()
	var row_now := selected()
	if row_now.get("id") == row["id"] and row_now.get("installable", false):
		text += ". Fix that, then press Install (free) again."
	_say(text)


## Asks before removing: only the companion's own files of this generation go.
func ask_remove() -> void:
	var row := selected()
	if row.is_empty():
		return
	var files: Array = row.get("outputs", []).filter(
		func(o: Dictionary) -> bool: return o.get("installed_path") != null
	)
	_confirm_remove.dialog_text = (
		"Remove the files of %s (%d) from the project?\n" % [row.get("name", ""), files.size()]
		+ "Only the companion's own files go; any you changed are kept."
	)
	_confirm_remove.popup_centered()


func remove_files() -> void:
	var row := selected()
	if row.is_empty():
		return
	var path := "/api/v1/generations/%s/remove_files" % String(row["id"])
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	if not reply["ok"]:
		_say(reply["message"])
		return
	var removed: Array = reply["data"].get("removed", [])
	var kept: Array = reply["data"].get("kept", [])
	var text := "Removed %d files." % removed.size()
	if not kept.is_empty():
		text += " Kept %d you changed: %s" % [kept.size(), ", ".join(
			kept.map(func(k: Dictionary) -> String: return String(k["path"]).get_file()))]
	files_changed.emit()
	await refresh()
	_say(text)
