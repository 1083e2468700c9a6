@tool
extends RefCounted
## The Generations list's rows in its Tree: generations newest first, each re-cut (or
## import) under the generation it was cut from and naming it, a character's moves under
## one item naming the character, every cell's whole text in its tooltip; each item
## carries its row's index in `rows` (a character's own item -1), so the list and the
## rows agree whatever the nesting.

const COLUMNS := ["When", "State", "Name", "Credits", "Model / seed", "Prompt"]
const NAME := 2
const PROMPT := 5
## Narrow columns at their content's width; Name and Prompt share what is left.
const COLUMN_WIDTHS := [110, 70, 150, 50, 100, 80]
const EXPAND := {NAME: 2.0, PROMPT: 3.0}
## The State cell of a job paid for whose files never went in: unlike a plain "failed"
## (which cost nothing) its credits are spent and Install (free) puts its files in.
const PAID_NOT_INSTALLED := "paid · not installed"


static func setup(tree: Tree) -> void:
	tree.columns = COLUMNS.size()
	for column in COLUMNS.size():
		tree.set_column_title(column, COLUMNS[column])
		tree.set_column_expand(column, EXPAND.has(column))
		if EXPAND.has(column):
			tree.set_column_expand_ratio(column, int(EXPAND[column]))
		tree.set_column_custom_minimum_width(column, COLUMN_WIDTHS[column])
		tree.set_column_clip_content(column, true)


## Fills tree from rows (newest first).
static func fill(tree: Tree, rows: Array[Dictionary]) -> void:
	tree.clear()
	var root := tree.create_item()
	var by_id := {}
	for row in rows:
		by_id[String(row.get("id", ""))] = row
	var items := {}
	var characters := {}
	for index in rows.size():  # generations first, so a re-cut finds its source's item
		var character := character_of(rows[index])
		if character != "":  # a move (a re-cut of a kept clip too): under its character
			var key := "%s|%s" % [character, String(rows[index].get("target_dir", ""))]
			if not characters.has(key):
				characters[key] = _character_item(tree, root, character, rows, index)
			var source := source_of(rows[index], by_id)
			items[String(rows[index].get("id", ""))] = _item(tree, characters[key], rows[index],
				index, source)
		elif source_of(rows[index], by_id).is_empty():
			items[String(rows[index].get("id", ""))] = _item(tree, root, rows[index], index, {})
	for index in rows.size():
		var source := source_of(rows[index], by_id)
		if not source.is_empty() and character_of(rows[index]) == "":
			var parent: TreeItem = items.get(String(source["id"]), root)
			_item(tree, parent, rows[index], index, source)


## The character a row's job is a move of ("" when it is not one).
static func character_of(row: Dictionary) -> String:
	var part: Variant = row.get("character")
	if typeof(part) == TYPE_DICTIONARY:
		return String(part.get("character", ""))
	return "" if part == null else String(part)


## The move a row's job makes ("" when it is not one).
static func move_of(row: Dictionary) -> String:
	var part: Variant = row.get("character")
	return String(part.get("move", "")) if typeof(part) == TYPE_DICTIONARY else ""


## One item for a character: its name, its moves and what they cost in all.
static func _character_item(tree: Tree, root: TreeItem, character: String, rows: Array,
		first: int) -> TreeItem:
	var moves := rows.filter(func(row: Dictionary) -> bool:
		return character_of(row) == character and row.get("target_dir") == rows[first].get(
			"target_dir"))
	var names := {}
	var cost := 0
	for row: Dictionary in moves:
		names[move_of(row)] = true
		cost += int(row.get("cost_credits", 0)) if row.get("cost_credits") != null else 0
	var item := tree.create_item(root)
	item.set_metadata(0, -1)
	var texts := [String(rows[first].get("created_at", "")).replace("T", " ").substr(5, 11),
		"character", "%s · %d moves" % [character, names.size()], str(cost), "",
		", ".join(names.keys())]
	for column in texts.size():
		item.set_text(column, texts[column])
		item.set_tooltip_text(column, texts[column])
	return item


## The generation a re-cut or import was cut from, when it is listed; else {}.
static func source_of(row: Dictionary, by_id: Dictionary) -> Dictionary:
	if String(row.get("kind", "")) != "recut" or row.get("parent") == null:
		return {}
	return by_id.get(String(row["parent"]), {})


static func _item(tree: Tree, parent: TreeItem, row: Dictionary, index: int,
		source: Dictionary) -> TreeItem:
	var item := tree.create_item(parent)
	item.set_metadata(0, index)
	var cost: Variant = row.get("cost_credits", row.get("quote"))
	var seed: Variant = row.get("seed")
	var model := String(row.get("model", "")) if row.get("model") != null else ""
	var name := String(row.get("name", ""))
	if not source.is_empty():
		name += " · re-cut of %s" % String(source.get("name", ""))
	var texts := [
		String(row.get("created_at", "")).replace("T", " ").substr(5, 11),  # 11-25 12:13
		state_text(row),
		name,
		"" if cost == null else str(int(cost)),
		model + ("" if seed == null else " / %d" % int(seed)),
		String(row.get("prompt", "")) if row.get("prompt") != null else "",
	]
	for column in texts.size():
		item.set_text(column, texts[column])
		item.set_tooltip_text(column, texts[column])
	# A long name wraps in its cell rather than being cut (Godot 4.3 and later).
	if item.has_method("set_autowrap_mode"):
		item.call("set_autowrap_mode", NAME, TextServer.AUTOWRAP_WORD_SMART)
	item.set_tooltip_text(0, String(row.get("created_at", "")))
	if not source.is_empty():
		item.set_tooltip_text(NAME, "%s: a free re-cut of %s (job %s)" % [
			String(row.get("name", "")), String(source.get("name", "")),
			String(source.get("id", "")).substr(0, 8)])
	var error: Variant = row.get("error")
	if error != null and String(error) != "":
		item.set_tooltip_text(1, String(error))
	if row.get("installable", false):
		item.set_tooltip_text(1, item.get_tooltip_text(1)
			+ "\nPaid for: Install (free) puts its files in without paying again.")
	return item


## What the State column says of a row: the daemon's state, except for a job paid for
## whose files never went in, which is not the same as a failure that cost nothing.
static func state_text(row: Dictionary) -> String:
	if row.get("installable", false):
		return PAID_NOT_INSTALLED
	return String(row.get("state", ""))


## The item showing rows[index] (null when none does).
static func item_of(tree: Tree, index: int) -> TreeItem:
	var root := tree.get_root()
	if root == null:
		return null
	var item := root.get_next_in_tree()
	while item != null:
		if int(item.get_metadata(0)) == index:
			return item
		item = item.get_next_in_tree()
	return null


## The index in rows of the selected item (-1: none).
static func selected_index(tree: Tree) -> int:
	var item := tree.get_selected()
	return -1 if item == null else int(item.get_metadata(0))
