@tool
extends RefCounted
## Finishing an animation here: the service's export scales smoothly and takes the video
## as it is, so once a job is done its kept video is cut again by the daemon (free,
## nothing is sent) as pixel art (nearest-neighbour scaling, no padding), in place (the
## camera's shake taken out) or as a seamless loop, into the same name; the daemon
## replaces only its own files, and merges a SpriteFrames the user changed.


## The re-cut job as it ended, or {state: "failed", error} when it could not start.
## finishing: the re-cut body's local options ({"pixel_art": true, "in_place": true, ...}).
static func recut(
	client: Node, job: Dictionary, export: Dictionary, finishing: Dictionary
) -> Dictionary:
	var path := "/api/v1/generations/%s/recut" % String(job["id"])
	var body := {"export": export}
	body.merge(finishing)
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, body)
	if not reply["ok"]:
		return {"state": "failed", "error": reply["message"]}
	return await client.wait_job(String(reply["data"]["id"]))


## What a finished re-cut says of its loop ("" without one).
static func seam_note(cut: Dictionary) -> String:
	var loop: Variant = cut.get("loop")
	if typeof(loop) != TYPE_DICTIONARY:
		return ""
	return " Loop seam %.2f (1 flows like any step)." % float(loop.get("seam", 0.0))
