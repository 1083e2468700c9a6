@tool
extends Node
## The dock's running job: started with the body the quote priced, polled with at most
## one request in flight, cancelled or approved on the user's word, finished once.

## Emitted once per job, when it reaches done, failed or cancelled.
signal finished(job: Dictionary)

const PixelArt := preload("res://addons/companion/pixel_art.gd")
const FINAL_STATES := ["done", "failed", "cancelled"]

var client: Node
var job_id := ""
## The export of the job running (for its finishing cut once it is done).
var sent_export := {}
## The dock's message line: say.call(text).
var say: Callable
var _quote: RefCounted
var _landing: RefCounted
var _polling := false
var _poll_timer: Timer
var _progress: ProgressBar
var _cancel_button: Button
var _approve_button: Button
var _pixel_art: CheckBox
var _in_place: CheckBox
var _loop: CheckBox


## The widgets are the dock's (by their unique names).
func setup(dock: Control, dock_client: Node, quote: RefCounted, landing: RefCounted) -> void:
	client = dock_client
	_quote = quote
	_landing = landing
	say = quote.say
	_poll_timer = dock.get_node("%PollTimer")
	_progress = dock.get_node("%Progress")
	_cancel_button = dock.get_node("%CancelButton")
	_approve_button = dock.get_node("%ApproveButton")
	_pixel_art = dock.get_node("%PixelArt")
	_in_place = dock.get_node("%InPlace")
	_loop = dock.get_node("%Loop")
	_poll_timer.timeout.connect(_poll_job)


## Sends the priced body; the quote is spent with it (one quote, one job).
func start(body: Dictionary) -> void:
	_quote.drop()
	sent_export = body["export"]
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, "/api/v1/animate", body)
	if not reply["ok"]:
		say.call(reply["message"])
		return
	job_id = reply["data"]["id"]
	_progress.value = 0.0
	_cancel_button.disabled = false
	say.call("Animating...")
	_poll_timer.start()


func cancel() -> void:
	if job_id == "":
		return
	var path := "/api/v1/jobs/%s/cancel" % job_id
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	say.call("Cancelling..." if reply["ok"] else reply["message"])


func approve() -> void:
	if job_id == "":
		return
	var path := "/api/v1/jobs/%s/approve" % job_id
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, {})
	_approve_button.visible = not reply["ok"]
	say.call("Approved; animating..." if reply["ok"] else reply["message"])


## One request at a time: a tick while the last is in flight does nothing, and a reply
## for a job that has meanwhile finished is dropped.
func _poll_job() -> void:
	if job_id == "":
		_poll_timer.stop()
		return
	if _polling:
		return
	_polling = true
	var polled := job_id
	var path := "/api/v1/jobs/%s" % polled
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_GET, path)
	_polling = false
	if polled != job_id:
		return
	if not reply["ok"]:
		say.call(reply["message"])
		return
	var job: Dictionary = reply["data"]
	_progress.value = float(job.get("progress", 0.0))
	var state := String(job.get("state", ""))
	_approve_button.visible = state == "awaiting_approval"
	if state == "awaiting_approval":
		say.call("This job is over your budget. Press Approve to spend the credits.")
	elif not (state in FINAL_STATES):
		say.call("Animating... (%s)" % state)
	else:
		finish(job)


## The local finishing ticked, as the re-cut body names it ({} when none).
func finishing_asked() -> Dictionary:
	var asked := {}
	if _pixel_art.button_pressed:
		asked["pixel_art"] = true
	if _in_place.button_pressed:
		asked["in_place"] = true
	if _loop.button_pressed:
		asked["loop"] = true
	return asked


## Ends the job once (a second report of it does nothing) and says how it went.
func finish(job: Dictionary) -> void:
	if job_id == "" or String(job.get("id", job_id)) != job_id:
		return
	job_id = ""
	_poll_timer.stop()
	_cancel_button.disabled = true
	_quote.drop()  # the quote was spent: the next job is quoted again
	var state := String(job.get("state", ""))
	var export := sent_export
	sent_export = {}
	var finishing := finishing_asked()
	var note := PixelArt.seam_note(job)
	# In place and Loop went with the request; pixel art is cut here once it is done.
	if state == "done" and finishing.has("pixel_art") and not export.is_empty():
		var what := "as pixel art"
		say.call("Done; cutting it %s from the kept video (free)..." % what)
		var cut: Dictionary = await PixelArt.recut(client, job, export, finishing)
		if cut.get("state") != "done":
			say.call("Done, but the cut %s %s: %s" % [what, cut.get("state"), cut.get("error", "")])
			finished.emit(job)
			return
		note = PixelArt.seam_note(cut)
	if state == "done" and job.get("resource") != null:
		say.call("Done: %s%s" % [String(job["resource"]), note])
		# Cut as pixel art (the cut above ended done): played with the nearest filter.
		var pixel_art := finishing.has("pixel_art") and not export.is_empty()
		_landing.land(String(job["resource"]), pixel_art)
	elif state == "done":
		say.call("Done; the files are in %s" % job.get("target_dir", "the target folder"))
		_landing.land("")
	else:
		# The daemon sends "error": null when there is no text: say only what happened.
		var why: Variant = job.get("error")
		var text := "" if why == null else String(why).strip_edges()
		say.call("The job %s%s" % [state, "." if text == "" else ": " + text])
	finished.emit(job)
