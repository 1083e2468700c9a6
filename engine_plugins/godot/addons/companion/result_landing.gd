@tool
extends RefCounted
## A finished job's files reaching the editor: one filesystem scan once they landed, then
## the new SpriteFrames selected, shown in the Inspector and played in the dock.

## The resource waiting to be listed by the editor's filesystem ("" when none).
var pending_resource := ""
## Filesystem scans the dock asked the editor for.
var scans := 0
var _scan_timer: Timer
var _caption: Label
var _player: TextureRect


func _init(scan_timer: Timer, caption: Label, player: TextureRect) -> void:
	_scan_timer = scan_timer
	_caption = caption
	_player = player
	_scan_timer.timeout.connect(_scan_now)


## The job's files are in the project: scan soon, then select the resource when given.
func land(resource: String) -> void:
	if resource != "":
		pending_resource = resource
	_scan_timer.start()


## One filesystem scan after the files landed, never while one is already running.
func _scan_now() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if filesystem.is_scanning():
		_scan_timer.start()
		return
	if pending_resource != "" and not filesystem.filesystem_changed.is_connected(_select_result):
		filesystem.filesystem_changed.connect(_select_result)
	scans += 1
	filesystem.scan()


## Selects the new resource once the editor's filesystem really lists it: a change
## signal that comes before (another scan, an import) leaves it waiting for the next.
func _select_result() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if pending_resource == "":
		filesystem.filesystem_changed.disconnect(_select_result)
		return
	if filesystem.get_file_type(pending_resource) == "" or filesystem.is_scanning():
		return
	filesystem.filesystem_changed.disconnect(_select_result)
	var resource := pending_resource
	pending_resource = ""
	EditorInterface.select_file(resource)
	var loaded := load(resource)
	# In the Inspector only: opening its editor would cover the dock and the result in it.
	EditorInterface.inspect_object(loaded, "", true)
	if loaded is SpriteFrames:
		_caption.text = "Latest result: %s" % resource.get_file()
		_player.play(loaded)
