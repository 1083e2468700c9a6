@tool
extends HBoxContainer
## A character's moves (moves.tscn, the Character tab beside the Companion one), made from
## the Companion tab's picture and settings: the list (common moves offered with a prompt
## to edit; added, removed, each looping or not), one quote of the whole set (each move's
## price and the total, against the budget), Animate all (one press, which is also the one
## approval when the set is over a budget), progress per move, and one move made again
## alone. The daemon's /character routes do the work.

## The set's jobs all ended (done, failed or cancelled): the first done one's.
signal finished(job: Dictionary)

## The moves offered, each with a prompt to start from.
const COMMON := {
	"idle": "idle breathing, loop",
	"walk": "walk cycle, side view",
	"run": "run cycle, side view",
	"attack": "sword slash attack",
	"jump": "jump up and land",
	"hurt": "recoil from a hit",
}
const RowScene := preload("res://addons/companion/move_row.tscn")
const QuoteLine := preload("res://addons/companion/quote_line.gd")
const FINAL_STATES := ["done", "failed", "cancelled"]

## The dock: its client, picture and form (the request every move shares).
var dock: Control
## The set's quote: its id and what it priced ({} when none is shown), and the total.
var quote := {}
var quoted_body := ""
var total := -1
## What the panel last said.
var said := ""
## The character's SpriteFrames, as the daemon names it for the set ("" outside Godot).
var frames := ""
## The move being made again alone, and its quote ({} when none).
var remake_row: Node
var remake_quote := {}
var _polling := false

@onready var rows_box: VBoxContainer = %MoveRows
@onready var common: OptionButton = %CommonMove
@onready var add_button: Button = %AddMove
@onready var quote_button: Button = %QuoteMoves
@onready var animate_button: Button = %AnimateAll
@onready var picture_label: Label = %MovesPicture
@onready var total_label: Label = %MovesTotal
@onready var poll_timer: Timer = %MovesPoll


func _ready() -> void:
	for move_name in COMMON:
		common.add_item(move_name)
	common.add_item("other")
	add_button.pressed.connect(func() -> void: add_move(common.get_item_text(common.selected)))
	quote_button.pressed.connect(quote_set)
	animate_button.pressed.connect(animate_all)
	poll_timer.timeout.connect(_poll)


## The rows of the list, in order (one being removed left out).
func rows() -> Array:
	return rows_box.get_children().filter(func(row: Node) -> bool:
		return not row.is_queued_for_deletion())


## A row for a move: a common one with its prompt, or "other" (named by the user).
func add_move(move_name: String, prompt := "") -> Node:
	var row: Node = RowScene.instantiate()
	rows_box.add_child(row)
	var named := "" if move_name == "other" else move_name
	row.fill(named, prompt if prompt != "" else String(COMMON.get(named, "")))
	row.changed.connect(drop_quote)
	row.remove_pressed.connect(func() -> void: remove_move(row))
	row.remake_pressed.connect(func() -> void: remake(row))
	drop_quote()
	return row


func remove_move(row: Node) -> void:
	rows_box.remove_child(row)
	row.queue_free()
	drop_quote()


func drop_quote() -> void:
	quote = {}
	quoted_body = ""
	total = -1
	animate_button.disabled = true
	animate_button.text = "Animate all"
	for row in rows():
		row.price.text = ""


## The set as sent: the dock's request (picture, size, formats, model...) with the
## character's name and its moves; a fixed seed is the set's, shared by every move.
func body(moves: Array = []) -> Dictionary:
	var request: Dictionary = dock.request_body()
	request.erase("prompt")
	if not request.has("name"):
		request["name"] = String(dock.image_path.get_file().get_basename())
	var seed: Variant = request["video"].get("seed")
	if seed != null:
		request["video"].erase("seed")
		request["seed"] = int(seed)
	request["moves"] = moves if not moves.is_empty() else rows().map(
		func(row: Node) -> Dictionary: return row.move())
	return request


## The Companion tab's picture, named where the list is.
func show_picture(path: String) -> void:
	picture_label.text = "Character: %s" % (path.get_file() if path != "" else "choose a picture "
		+ "in the Companion tab")
	drop_quote()


func _say(text: String) -> void:
	said = text
	total_label.text = text
	total_label.tooltip_text = text


## Prices the whole set (nothing spent): each move's price on its row, the total and the
## budget below; a move made already is 0.
func quote_set() -> void:
	if dock.image_path == "":
		_say("Choose the character's picture first (Use selected).")
		return
	if rows().is_empty():
		_say("Add a move first.")
		return
	if not await dock.link.ensure_project(dock.project_root()):
		return
	var sent := body()
	var reply: Dictionary = await dock.client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/character/quote", sent)
	if not reply["ok"]:
		_say(reply["message"])
		return
	if JSON.stringify(body()) != JSON.stringify(sent):
		await quote_set()  # changed while it was on its way: price what is shown
		return
	quote = reply["data"]
	quoted_body = JSON.stringify(sent)
	var priced: Array = quote.get("moves", [])
	for index in mini(priced.size(), rows().size()):
		var move: Dictionary = priced[index].get("quote", {})
		var earlier: Variant = move.get("earlier")
		var why := String(earlier.get("why", "")) if typeof(earlier) == TYPE_DICTIONARY else ""
		rows()[index].show_price(int(move.get("credits", 0)), int(move.get("spends", 0)), why)
	total = int(quote.get("spends", 0))
	animate_button.disabled = false
	var over := over_budget()
	animate_button.text = ("Approve and animate all (%d credits)" if over
		else "Animate all (%d credits)") % total
	_say("%d moves: %d credits in all%s.%s" % [priced.size(), total, money(quote),
		"\nThe set is over your budget as a whole: Animate all approves it once." if over
		else " Press Animate all to go ahead."])


## The balance and budgets beside a set's price; its one press is the approval, so the
## single job's "it waits for your approval" is not said.
static func money(quoted: Dictionary) -> String:
	var shown := quoted.duplicate(true)
	if typeof(shown.get("budget")) == TYPE_DICTIONARY:
		shown["budget"]["over"] = false
	return QuoteLine.money_note(shown)


## Whether the quote shown holds the set over a budget (then Animate all approves it).
func over_budget() -> bool:
	var budget: Variant = quote.get("budget")
	return typeof(budget) == TYPE_DICTIONARY and bool(budget.get("over", false))


## Starts every move the quote priced with one press; without a quote for exactly the
## set shown, it quotes instead of spending.
func animate_all() -> void:
	var sent := body()
	if quote.is_empty() or JSON.stringify(sent) != quoted_body:
		drop_quote()
		await quote_set()
		return
	sent["quote_id"] = quote.get("quote_id", "")
	if over_budget():
		sent["approve"] = true  # the user saw "Approve and animate all"
	drop_quote()
	var reply: Dictionary = await dock.client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/character", sent)
	if not reply["ok"]:
		_say(reply["message"])
		return
	var named: Variant = reply["data"].get("frames")
	frames = "" if named == null else ProjectSettings.localize_path(String(named))
	_take_jobs(reply["data"].get("moves", []), rows())
	_say("Animating %d moves..." % rows().size())
	poll_timer.start()


## Each move's job id on its row (the reply lists the moves in the order sent).
func _take_jobs(started: Array, for_rows: Array) -> void:
	for index in mini(started.size(), for_rows.size()):
		var job: Dictionary = started[index].get("job", {})
		for_rows[index].job_id = String(job.get("id", ""))
		for_rows[index].show_job(job)


## First press: this move alone, again with a new take, priced; second: made.
func remake(row: Node) -> void:
	var sent := body([row.move()])
	sent["again"] = true
	if remake_row != row or remake_quote.is_empty():
		var priced: Dictionary = await dock.client.call_api(
			HTTPClient.METHOD_POST, "/api/v1/character/quote", sent)
		if not priced["ok"]:
			_say(priced["message"])
			return
		remake_row = row
		remake_quote = priced["data"]
		var credits := int(remake_quote.get("spends", 0))
		row.remake.text = "Make (%d)" % credits
		_say("%s again: %d credits. Press Make to go ahead." % [row.move()["name"], credits])
		return
	sent["quote_id"] = remake_quote.get("quote_id", "")
	if bool(remake_quote.get("budget", {}).get("over", false)):
		sent["approve"] = true  # "Make" with its price shown is the approval
	remake_quote = {}
	row.remake.text = "Again"
	var reply: Dictionary = await dock.client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/character", sent)
	if not reply["ok"]:
		_say(reply["message"])
		return
	_take_jobs(reply["data"].get("moves", []), [row])
	_say("Making %s again..." % row.move()["name"])
	poll_timer.start()


## One round of polls at a time: each move's job read, its row updated; once all ended,
## the set is finished once.
func _poll() -> void:
	if _polling:
		return
	_polling = true
	var running := rows().filter(func(row: Node) -> bool:
		return row.job_id != "" and not (row.state in FINAL_STATES))
	for row in running:
		var reply: Dictionary = await dock.client.call_api(
			HTTPClient.METHOD_GET, "/api/v1/jobs/%s" % row.job_id)
		if reply["ok"] and is_instance_valid(row):
			row.show_job(reply["data"])
	_polling = false
	var started := rows().filter(func(row: Node) -> bool: return row.job_id != "")
	if started.any(func(row: Node) -> bool: return not (row.state in FINAL_STATES)):
		return
	poll_timer.stop()
	var done := started.filter(func(row: Node) -> bool: return row.state == "done")
	_say("%d of %d moves done." % [done.size(), started.size()])
	var job := {}
	if not done.is_empty():
		var reply: Dictionary = await dock.client.call_api(
			HTTPClient.METHOD_GET, "/api/v1/jobs/%s" % done[0].job_id)
		job = reply["data"] if reply["ok"] else {}
	if not job.is_empty() and frames.begins_with("res://"):
		job["resource"] = frames  # the character's own SpriteFrames, every move in it
	finished.emit(job)
