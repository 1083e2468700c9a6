@tool
extends HBoxContainer
## This project's generations, newest first, as the daemon keeps them (across editor and
## daemon restarts): state, name, cost, prompt, model and seed where the daemon gives
## them, and when. The selected one plays beside the list.

## The user asked to fill the form with a generation's settings (its request as JSON).
signal use_settings(settings: Dictionary)
## The user asked for the same settings with a new seed.
signal again(settings: Dictionary)

const COLUMNS := ["When", "State", "Name", "Credits", "Model / seed", "Prompt"]

var client: Node
var project_root := ""
## What the list shows, newest first.
var rows: Array[Dictionary] = []
## How many times the list was filled from the daemon.
var listings := 0

@onready var _list: Tree = %List
@onready var _summary: Label = %Summary
@onready var _preview: TextureRect = %Preview
@onready var _use_button: Button = %UseButton
@onready var _reveal_button: Button = %RevealButton
@onready var _again_button: Button = %AgainButton


func _ready() -> void:
	for column in COLUMNS.size():
		_list.set_column_title(column, COLUMNS[column])
		_list.set_column_expand(column, column == COLUMNS.size() - 1)
	_list.item_selected.connect(_show_selected)
	%RefreshButton.pressed.connect(refresh)
	_use_button.pressed.connect(func() -> void: use_settings.emit(selected().get("settings", {})))
	_reveal_button.pressed.connect(reveal)
	_again_button.pressed.connect(func() -> void: again.emit(selected().get("settings", {})))


## Asks the daemon for this project's generations (GET /api/v1/generations); a daemon
## without that route gives its job list, narrowed to this project's folder.
func refresh() -> void:
	if client == null:
		return
	var query := "/api/v1/generations?project=%s" % project_root.uri_encode()
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, query)
	var found: Array = []
	if reply["ok"]:
		found = reply["data"].get("data", [])
	elif reply["status"] == 404:
		var jobs: Dictionary = await client.call_api(HTTPClient.METHOD_GET, "/api/v1/jobs")
		if not jobs["ok"]:
			_summary.text = jobs["message"]
			return
		var inside := project_root.simplify_path().trim_suffix("/") + "/"
		for job in jobs["data"].get("data", []):
			if String(job.get("target_dir", "")).simplify_path().begins_with(inside):
				found.append(job)
	else:
		_summary.text = reply["message"]
		return
	rows.clear()
	for item in found:
		rows.append(item)
	rows.sort_custom(func(a: Dictionary, b: Dictionary) -> bool:
		return String(a.get("created_at", "")) > String(b.get("created_at", "")))
	_fill()


func _fill() -> void:
	var kept := String(selected().get("id", ""))
	listings += 1
	_list.clear()
	var root := _list.create_item()
	for row in rows:
		var item := _list.create_item(root)
		var cost: Variant = row.get("cost_credits", row.get("quote"))
		var seed: Variant = row.get("seed")
		var model := String(row.get("model", "")) if row.get("model") != null else ""
		var texts := [
			String(row.get("created_at", "")).replace("T", " ").left(19),
			String(row.get("state", "")),
			String(row.get("name", "")),
			"" if cost == null else str(int(cost)),
			model + ("" if seed == null else " / %d" % int(seed)),
			String(row.get("prompt", "")) if row.get("prompt") != null else "",
		]
		for column in texts.size():
			item.set_text(column, texts[column])
		var error: Variant = row.get("error")
		if error != null and String(error) != "":
			item.set_tooltip_text(1, String(error))
	_summary.text = "%d generations of this project, newest first" % rows.size()
	_use_button.disabled = true
	_again_button.disabled = true
	_reveal_button.disabled = true
	for index in rows.size():  # the row the user had selected stays selected
		if kept != "" and rows[index].get("id") == kept:
			select_row(index)


func selected() -> Dictionary:
	var item := _list.get_selected()
	if item == null:
		return {}
	var index := item.get_index()
	return rows[index] if index < rows.size() else {}


## Selects a row as the user clicks it.
func select_row(index: int) -> void:
	var item := _list.get_root().get_child(index)
	_list.set_selected(item, 0)


func _show_selected() -> void:
	var row := selected()
	var resource := String(row.get("resource", "")) if row.get("resource") != null else ""
	if row.get("state") == "done" and resource != "" and ResourceLoader.exists(resource):
		var loaded := load(resource)
		if loaded is SpriteFrames:
			_preview.play(loaded)
	else:
		_preview.stop()
	_use_button.disabled = typeof(row.get("settings")) != TYPE_DICTIONARY
	_again_button.disabled = _use_button.disabled
	_reveal_button.disabled = String(row.get("target_dir", "")) == ""


## Opens the generation's folder in the system's file browser.
func reveal() -> void:
	var folder := String(selected().get("target_dir", ""))
	if folder != "":
		OS.shell_show_in_file_manager(folder)
