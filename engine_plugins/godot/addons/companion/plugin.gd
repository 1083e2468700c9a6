@tool
extends EditorPlugin
## Adds the Companion dock (the Animate form), the Character tab (a character's moves)
## and the Generations tab, and on Godot 4.4+ "Animate..." (several pictures: "Animate as
## a batch...") in the FileSystem context menu. The daemon does the work and writes the
## files; this only asks.

const DockScene := preload("res://addons/companion/dock.tscn")
const GenerationsScene := preload("res://addons/companion/generations.tscn")
const MovesScene := preload("res://addons/companion/moves.tscn")
const DaemonClient := preload("res://addons/companion/daemon_client.gd")
const CONTEXT_MENU_SCRIPT := "res://addons/companion/context_menu.gd"
const FILESYSTEM_SLOT := 1  # EditorContextMenuPlugin.CONTEXT_SLOT_FILESYSTEM
const TAB_TITLE := "Companion"

var dock: Control
var generations: Control
var character: Control
var context_menu: RefCounted


func _enter_tree() -> void:
	_add_command_setting()
	dock = DockScene.instantiate()
	# Its own tab in the bottom panel, beside Output: seen in any layout, wide enough for
	# the form, the actions, the picture and the result side by side. Not "Animate": that
	# sat beside Godot's own "Animation" tab and was taken for it.
	add_control_to_bottom_panel(dock, TAB_TITLE)
	# A character's moves, from the Companion tab's picture and settings: the tab beside.
	character = MovesScene.instantiate()
	character.dock = dock
	add_control_to_bottom_panel(character, "Character")
	dock.picture_chosen.connect(character.show_picture)
	character.finished.connect(dock.set_finished)
	# Every generation of this project, in the tab beside it; listed again whenever the
	# dock (re)connects to the daemon or a job ends.
	generations = GenerationsScene.instantiate()
	generations.client = dock.client
	generations.project_root = ProjectSettings.globalize_path("res://")
	add_control_to_bottom_panel(generations, "Generations")
	dock.connected.connect(generations.refresh)
	dock.disconnected.connect(generations.show_offline)
	dock.finished.connect(func(_job: Dictionary) -> void: generations.refresh())
	generations.use_settings.connect(dock.apply_settings)
	generations.again.connect(dock.generate_again)
	generations.files_changed.connect(_rescan)
	generations.refresh.call_deferred()  # says so at once when the daemon is away
	# Before 4.4 there is no context-menu API; the dock's "Use selected" serves instead.
	if ClassDB.class_exists("EditorContextMenuPlugin"):
		context_menu = load(CONTEXT_MENU_SCRIPT).new(dock)
		call("add_context_menu_plugin", FILESYSTEM_SLOT, context_menu)


func _exit_tree() -> void:
	if context_menu != null:
		call("remove_context_menu_plugin", context_menu)
		context_menu = null
	if character != null:
		remove_control_from_bottom_panel(character)
		character.queue_free()
		character = null
	if generations != null:
		remove_control_from_bottom_panel(generations)
		generations.queue_free()
		generations = null
	if dock != null:
		remove_control_from_bottom_panel(dock)
		dock.queue_free()
		dock = null


## Files the Generations panel changed (a re-cut, an import, a removal) show at once.
func _rescan() -> void:
	var filesystem := EditorInterface.get_resource_filesystem()
	if not filesystem.is_scanning():
		filesystem.scan()


## Editor Settings > companion/daemon/command: what Start daemon runs (with "serve");
## left at "companion", the command `companion plugin install` recorded is run.
func _add_command_setting() -> void:
	var settings := EditorInterface.get_editor_settings()
	if not settings.has_setting(DaemonClient.COMMAND_SETTING):
		settings.set_setting(DaemonClient.COMMAND_SETTING, DaemonClient.DEFAULT_COMMAND)
	settings.set_initial_value(DaemonClient.COMMAND_SETTING, DaemonClient.DEFAULT_COMMAND, false)
	settings.add_property_info({
		"name": DaemonClient.COMMAND_SETTING,
		"type": TYPE_STRING,
		"hint": PROPERTY_HINT_GLOBAL_FILE,
	})
