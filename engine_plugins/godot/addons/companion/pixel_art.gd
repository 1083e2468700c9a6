@tool
extends RefCounted
## Pixel art for an animation: the service's export scales smoothly, so once a job is
## done its kept video is cut again by the daemon (free, nothing is sent) with
## nearest-neighbour scaling and no padding, into the same name; the daemon replaces only
## its own files, and merges a SpriteFrames the user changed.


## The re-cut job as it ended, or {state: "failed", error} when it could not start.
static func recut(client: Node, job: Dictionary, export: Dictionary) -> Dictionary:
	var path := "/api/v1/generations/%s/recut" % String(job["id"])
	var body := {"export": export, "pixel_art": true}
	var reply: Dictionary = await client.call_api(HTTPClient.METHOD_POST, path, body)
	if not reply["ok"]:
		return {"state": "failed", "error": reply["message"]}
	return await client.wait_job(String(reply["data"]["id"]))
