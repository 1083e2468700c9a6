@tool
extends HBoxContainer
## One move of a character (move_row.tscn): its name, the prompt to edit, whether it
## loops, its price in the set's quote, its progress once animated, and its own buttons:
## make it again alone (priced first) and remove it from the list.

## The name, prompt or loop changed: the set's quote no longer prices it.
signal changed
## The user asked to make this move again alone.
signal remake_pressed
## The user removed it from the list.
signal remove_pressed

## Moves that loop unless told, as the daemon decides them.
const LOOPING := ["idle", "walk", "run", "fly", "swim", "float"]
## Why a move costs nothing now, short enough for its row (the daemon's "earlier.why").
const FREE_BECAUSE := {
	"made": "already made",
	"under_way": "under way",
	"paid_not_installed": "paid, installs free",
	"recut": "re-cut, free",
}

## The job making this move ("" until Animate all).
var job_id := ""
## What its last poll said: queued, creating, done...
var state := ""
var _loop_touched := false

@onready var move_name: LineEdit = %MoveName
@onready var prompt: LineEdit = %MovePrompt
@onready var loop: CheckBox = %MoveLoop
@onready var price: Label = %MovePrice
@onready var progress: ProgressBar = %MoveProgress
@onready var remake: Button = %Remake
@onready var remove: Button = %Remove


func _ready() -> void:
	move_name.text_changed.connect(_renamed)
	prompt.text_changed.connect(func(_text: String) -> void: changed.emit())
	loop.toggled.connect(func(_on: bool) -> void:
		_loop_touched = true
		changed.emit())
	remake.pressed.connect(func() -> void: remake_pressed.emit())
	remove.pressed.connect(func() -> void: remove_pressed.emit())


## Fills the row: loop follows the name (idle, walk, run... loop) until the user sets it.
func fill(named: String, asked: String) -> void:
	move_name.text = named
	prompt.text = asked
	loop.set_pressed_no_signal(named.strip_edges().to_lower() in LOOPING)


## As the set's request names it: {name, prompt, loop}.
func move() -> Dictionary:
	return {"name": move_name.text.strip_edges(), "prompt": prompt.text.strip_edges(),
		"loop": loop.button_pressed}


## Its price in the quote: "0 — already made" when an earlier job answers it (or the
## reason it is free: a re-cut of a kept clip...).
func show_price(credits: int, spends: int, why: String) -> void:
	if spends == 0 and credits > 0:
		price.text = "0 — %s" % FREE_BECAUSE.get(why, "already made")
	else:
		price.text = "%d credits" % spends
	price.tooltip_text = price.text


func show_job(job: Dictionary) -> void:
	state = String(job.get("state", ""))
	# A move answered by a re-cut or an earlier job may not report its progress: done is all.
	progress.value = 1.0 if state == "done" else float(job.get("progress", 0.0))
	progress.tooltip_text = state
	remake.disabled = not (state in ["done", "failed", "cancelled"])


func _renamed(text: String) -> void:
	if not _loop_touched:
		loop.set_pressed_no_signal(text.strip_edges().to_lower() in LOOPING)
	changed.emit()
