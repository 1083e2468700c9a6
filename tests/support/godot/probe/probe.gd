@tool
extends EditorPlugin
## Writes {"dock", "version", "status"} to COMPANION_PROBE_OUT once the Animate dock is found (or
## surely absent) and quits the editor: one editor start answers whether an installed
## addon loaded.


func _enter_tree() -> void:
	var out_file := OS.get_environment("COMPANION_PROBE_OUT")
	if out_file != "":
		_probe.call_deferred(out_file)


func _probe(out_file: String) -> void:
	var installed := FileAccess.file_exists("res://addons/companion/plugin.cfg")
	var found := false
	# The dock is added while plugins load; without the addon a few frames are enough.
	var frames := 600 if installed else 30
	for attempt in frames:
		for node in EditorInterface.get_base_control().find_children("Animate", "", true, false):
			if node.has_method("quote"):
				found = true
		if found:
			break
		await get_tree().process_frame
	# What the dock says once it has asked the daemon (or found it not running).
	var status := ""
	if found:
		var dock: Node = null
		for node in EditorInterface.get_base_control().find_children("Animate", "", true, false):
			if node.has_method("quote"):
				dock = node
		for attempt in 600:
			status = dock._status_label.text
			if "·" in status or "not running" in status:
				break
			await get_tree().process_frame
	var version := ""
	var cfg := ConfigFile.new()
	if installed and cfg.load("res://addons/companion/plugin.cfg") == OK:
		version = str(cfg.get_value("plugin", "version", ""))
	var file := FileAccess.open(out_file, FileAccess.WRITE)
	file.store_string(JSON.stringify({"dock": found, "version": version, "status": status}))
	file.close()
	get_tree().quit(0)
