@tool
extends RefCounted
## The dock's quote: the price of exactly the request shown, the daemon's id for it, the
## Animate button's price, and the user's say on files the install would replace: replace
## them (moved aside), or take the free name the quote suggests.

## The user took the quote's free name: the form's Name becomes it and is quoted again.
signal name_taken(chosen: String)

## What the button says instead of the price when an earlier job of exactly this request
## answers Animate (the daemon's "earlier.why"): nothing is spent then.
const FREE_BECAUSE := {
	"made": "already made",
	"under_way": "under way",
	"paid_not_installed": "install what was paid for",
	"recut": "re-cut of the kept clip",
}

## The price of the quoted request, or -1 when there is no quote for what is shown.
var credits := -1
## What pressing Animate spends now: credits, or 0 when an earlier job answers it.
var spends := -1
## The daemon's id for that quote (sent with Animate) and the request it priced.
var id := ""
var body := ""
## The user's changed files the quote said the install would replace, and whether the
## user agreed (then Animate sends "replace": true and the daemon moves them aside).
var conflicts: Array = []
var replace_agreed := false
## A name free in that folder, when there are conflicts ("" otherwise).
var suggestion := ""
## The dock's message line: say.call(text).
var say: Callable
var _animate_button: Button
var _confirm_replace: ConfirmationDialog
var _use_name: Button


func _init(animate_button: Button, confirm_replace: ConfirmationDialog, say_line: Callable) -> void:
	_animate_button = animate_button
	_confirm_replace = confirm_replace
	say = say_line
	_confirm_replace.confirmed.connect(_agree_replace)
	_confirm_replace.canceled.connect(_refuse_replace)
	_use_name = _confirm_replace.add_button("Use name", true, "use_name")
	_confirm_replace.custom_action.connect(_custom_action)


func is_empty() -> bool:
	return credits < 0 and id == ""


func drop() -> void:
	credits = -1
	spends = -1
	id = ""
	body = ""
	conflicts = []
	replace_agreed = false
	suggestion = ""
	_animate_button.disabled = true
	_animate_button.text = "Animate"


## Whether the quote priced exactly this request.
func prices(request: Dictionary) -> bool:
	return credits >= 0 and JSON.stringify(request) == body


## Keeps the daemon's quote of that request and shows what Animate spends on its button:
## the price, or "free" when an earlier job of exactly this request answers it.
func take(quoted: Dictionary, request: Dictionary, frames_note: String) -> void:
	credits = int(quoted.get("credits", 0))
	spends = int(quoted.get("spends", credits))
	id = String(quoted.get("quote_id", ""))
	body = JSON.stringify(request)
	conflicts = quoted.get("conflicts", [])
	replace_agreed = false
	var free: Variant = quoted.get("name_suggestion")
	suggestion = "" if free == null else String(free)
	_animate_button.disabled = false
	var earlier: Variant = quoted.get("earlier")
	if typeof(earlier) == TYPE_DICTIONARY and spends != credits:
		var why := String(earlier.get("why", ""))
		_animate_button.text = "Animate (free: %s)" % FREE_BECAUSE.get(why, "nothing spent")
		var replacing := replaces_note(quoted.get("replaces", []))
		say.call("%s%s.%s%s" % [earlier_note(earlier, credits), money_note(quoted),
			"" if frames_note == "" else "\n" + frames_note,
			"" if replacing == "" else "\n" + replacing])
		# A free re-cut of a kept clip installs files like a new job: a file the user
		# changed in its way is asked about the same way.
		if not conflicts.is_empty():
			ask_replace()
		return
	_animate_button.text = "Animate (%d credits)" % spends
	var replaced := replaces_note(quoted.get("replaces", []))
	say.call("This will cost %d credits%s. Press Animate to go ahead.%s%s"
		% [spends, money_note(quoted), "" if frames_note == "" else "\n" + frames_note,
			"" if replaced == "" else "\n" + replaced])
	if not conflicts.is_empty():
		ask_replace()


## Which earlier job answers Animate, free, and what a new one costs: "Nothing is spent:
## job abc12345 already made exactly this ... Generations > Generate again makes a new one
## at 9 credits."
static func earlier_note(earlier: Dictionary, price: int) -> String:
	var job := String(earlier.get("id", "")).left(8)
	var what := "Press Animate to show it"
	match String(earlier.get("why", "")):
		"made":
			what = ("already made exactly this, and its files are still in place. "
				+ "Press Animate to show it")
		"under_way":
			what = "is making exactly this now. Press Animate to follow it"
		"paid_not_installed":
			what = ("was paid for, but its files did not all go in. "
				+ "Press Animate to install them, free")
		"recut":
			what = ("generated this picture, prompt and video options, and its clip is "
				+ "kept. Press Animate to re-cut it with these frames, size and formats, free")
	return ("Nothing is spent: job %s %s.\nGenerations > Generate again makes a new one at "
		+ "%d credits") % [job, what, price]


## The balance and the budgets beside the price: "(balance 960, budget 50 a job)".
static func money_note(quoted: Dictionary) -> String:
	var parts := []
	if quoted.get("balance") != null:
		parts.append("balance %d" % int(quoted["balance"]))
	var budget: Variant = quoted.get("budget")
	if typeof(budget) == TYPE_DICTIONARY:
		if budget.get("per_job") != null:
			parts.append("budget %d a job" % int(budget["per_job"]))
		if budget.get("per_day") != null:
			parts.append("%d of %d spent today" % [int(budget["spent_today"]), int(budget["per_day"])])
		if budget.get("over", false):
			parts.append("over budget: it waits for your approval")
	return "" if parts.is_empty() else " (%s)" % ", ".join(parts)


## The files of an earlier job of this name the install replaces unasked (unchanged
## since, as a re-import would), said before anything is paid: "Replaces
## animations/knight.tres and 2 more files (job abc12345, ...)"; "" when none.
static func replaces_note(replaces: Array) -> String:
	if replaces.is_empty():
		return ""
	var first: Dictionary = replaces[0]
	for item: Dictionary in replaces:  # the playable resource names it best
		if String(item.get("path", "")).get_extension() in ["tres", "anim"]:
			first = item
			break
	var path := ProjectSettings.localize_path(String(first.get("path", "")))
	path = path.trim_prefix("res://") if path.begins_with("res://") else path.get_file()
	var others := replaces.size() - 1
	var more := "" if others == 0 else " and %d more file%s" % [others, "" if others == 1 else "s"]
	return ("Replaces %s%s (job %s, from an earlier generation; Generations > Import brings it back)"
		% [path, more, String(first.get("job", "")).left(8)])


## The install would replace files the user changed: ask, never replace unasked.
func ask_replace() -> void:
	_confirm_replace.dialog_text = (
		"You changed %s since the companion wrote it.\n" % _conflict_names()
		+ "Replace it? Your version is moved to .companion-replaced~ beside it, not deleted."
		+ ("" if suggestion == "" else "\nOr name this animation %s: that name is free." % suggestion)
	)
	_use_name.text = "Use name %s" % suggestion
	_use_name.visible = suggestion != ""
	_confirm_replace.popup_centered()


func _agree_replace() -> void:
	replace_agreed = true
	say.call("Your changed files will be moved aside and replaced. Press Animate to go ahead.")


func _custom_action(action: StringName) -> void:
	if action != &"use_name" or suggestion == "":
		return
	var chosen := suggestion
	_confirm_replace.hide()
	name_taken.emit(chosen)


func _refuse_replace() -> void:
	var names := _conflict_names()
	drop()
	say.call("Nothing replaced, nothing spent: %s stays yours. Move it away, or " % names
		+ "give the animation another Name.")


func _conflict_names() -> String:
	return ", ".join(conflicts.map(func(c: Dictionary) -> String:
		return String(c.get("path", "")).get_file()))
