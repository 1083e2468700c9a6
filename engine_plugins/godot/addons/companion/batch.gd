@tool
extends Node
## Several pictures animated with the dock's settings as one batch: one quote (each
## picture's price and the total, 0 for one made already), one cap (the daemon holds the
## total to the budget; over it, Animate asks once for the whole batch), then each
## picture's job followed to its end. The daemon's /batch routes do the work.

## Every job of the batch ended: the last done one's ({} when none).
signal finished(job: Dictionary)

const FINAL_STATES := ["done", "failed", "cancelled"]
const Moves := preload("res://addons/companion/moves.gd")

## The pictures (res:// paths); a batch is two or more.
var paths: Array = []
## The batch's quote ({} when none is shown) and the request it priced.
var quote := {}
var quoted_body := ""
## The jobs started, in the pictures' order, and how each ended.
var jobs: Array = []
var ended: Array = []
## The dock's message line: say.call(text).
var say: Callable
var _dock: Control
var _animate_button: Button
var _progress: ProgressBar


func setup(dock: Control, say_line: Callable) -> void:
	_dock = dock
	say = say_line
	_animate_button = dock.get_node("%AnimateButton")
	_progress = dock.get_node("%Progress")


func active() -> bool:
	return paths.size() >= 2


## Several pictures animated with the form's settings as one batch: one quote, one cap.
## The first sets the form (its size and transparency) as one picture does.
func choose(chosen: Array) -> void:
	var pictures := chosen.filter(_dock.is_image)
	if pictures.is_empty():
		return
	_dock.set_image(pictures[0])
	if pictures.size() < 2:
		return
	paths = pictures
	var label: Label = _dock.get_node("%ImageLabel")
	label.text = "Batch of %d: %s" % [pictures.size(), ", ".join(
		pictures.map(func(p: String) -> String: return p.get_file()))]
	label.tooltip_text = "\n".join(pictures)
	say.call("A batch of %d pictures, each animated with these settings and named after "
		% pictures.size() + "itself. Press Quote for each one's price and the total.")


func drop() -> void:
	quote = {}
	quoted_body = ""


## The dock's request for every picture: each named after itself.
func body() -> Dictionary:
	var request: Dictionary = _dock.request_body()
	request.erase("image_path")
	request.erase("name")
	request["image_paths"] = paths.map(func(path: String) -> String:
		return path.trim_prefix("res://"))
	return request


## Prices the batch; nothing is spent. Animate then shows the total it spends.
func price() -> void:
	var sent := body()
	var reply: Dictionary = await _dock.client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/batch/quote", sent)
	if not reply["ok"]:
		say.call(reply["message"])
		return
	if JSON.stringify(body()) != JSON.stringify(sent):
		await price()  # changed while it was on its way
		return
	quote = reply["data"]
	quoted_body = JSON.stringify(sent)
	var lines := []
	for each: Dictionary in quote.get("data", []):
		var spends := int(each.get("spends", 0))
		var made := spends == 0 and int(each.get("credits", 0)) > 0
		lines.append("%s: %s" % [String(each.get("image_path", "")).get_file(),
			"0 — already made" if made else "%d credits" % spends])
	var total := int(quote.get("spends_total", 0))
	var over: bool = quote.get("budget", {}).get("over", false)
	_animate_button.disabled = false
	_animate_button.text = ("Approve and animate batch (%d credits)" if over
		else "Animate batch (%d credits)") % total
	lines.append("Batch of %d: %d credits in all%s." % [paths.size(), total,
		Moves.money(quote)])
	if over:
		lines.append("The batch is over your budget as a whole: Animate approves it once.")
	say.call("\n".join(lines))


## Starts the batch the quote priced; a changed request is quoted again instead.
func start() -> void:
	var sent := body()
	if quote.is_empty() or JSON.stringify(sent) != quoted_body:
		drop()
		await price()
		return
	sent["quote_id"] = quote.get("quote_id", "")
	if quote.get("budget", {}).get("over", false):
		sent["approve"] = true  # the user saw "Approve and animate batch"
	_dock.drop_quote()
	var reply: Dictionary = await _dock.client.call_api(
		HTTPClient.METHOD_POST, "/api/v1/batch", sent)
	if not reply["ok"]:
		say.call(reply["message"])
		return
	jobs = reply["data"].get("data", [])
	ended = []
	_progress.value = 0.0
	say.call("Animating a batch of %d..." % jobs.size())
	var last := {}
	for job: Dictionary in jobs:
		var final: Dictionary = job
		if not (String(job.get("state", "")) in FINAL_STATES):
			final = await _dock.client.wait_job(String(job["id"]), 600.0)
		ended.append(final)
		_progress.value = float(ended.size()) / jobs.size()
		if final.get("state") == "done":
			last = final
	var done := ended.filter(func(j: Dictionary) -> bool: return j.get("state") == "done")
	say.call("Batch: %d of %d done." % [done.size(), jobs.size()])
	finished.emit(last)
