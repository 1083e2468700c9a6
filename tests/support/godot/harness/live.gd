@tool
extends "res://addons/companion_test_harness/scenario.gd"
## The dock's line to the daemon as a user lives with it (see harness.gd): Start daemon
## with a command that is not there, then one that exits at once, each said with its
## reason; then, with the setting left as it was, the companion `plugin install`
## recorded (not on PATH) started; then that daemon killed, and the dock says it is
## offline and offers Start daemon without anyone pressing Refresh.


func run(harness: EditorPlugin) -> void:
	take(harness)
	var settings := EditorInterface.get_editor_settings()
	h._show(dock)
	await h._until(func() -> bool: return dock._start_button.visible, 20)
	out["away"] = {"status": dock._status_label.text, "start": dock._start_button.visible}

	for case in ["missing", "failing"]:
		settings.set_setting("companion/daemon/command", plan[case])
		dock._message.text = ""
		h._press(dock._start_button)
		await h._until(func() -> bool: return dock._message.text.begins_with("Could not start"), 5)
		out[case] = dock._message.text

	# Left at its default, Start daemon runs the companion that installed the addon.
	settings.set_setting("companion/daemon/command", "companion")
	h._press(dock._start_button)
	out["starting"] = dock._message.text
	await h._until(func() -> bool: return dock._status_label.text.contains("balance"), 90)
	out["started"] = {"status": dock._status_label.text, "pid": dock.launched_pid,
		"start": dock._start_button.visible, "message": dock._message.text}
	out["started_pid"] = dock.launched_pid  # for the test to stop it whatever happens

	# The test kills that daemon: the dock hears its event stream close.
	FileAccess.open(plan["kill_ready"], FileAccess.WRITE).store_string(str(dock.launched_pid))
	await h._until(func() -> bool: return FileAccess.file_exists(plan["killed"]), 30)
	var offline := func() -> bool:
		return dock._status_label.text.contains("not running") and dock._start_button.visible
	out["offline_in_time"] = await h._until(offline, 10)
	out["offline"] = {"status": dock._status_label.text, "start": dock._start_button.visible,
		"message": dock._message.text}
	h._done("")
