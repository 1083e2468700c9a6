@tool
extends EditorPlugin
## Adds the Animate dock, and on Godot 4.4+ an "Animate..." entry in the FileSystem
## context menu. The daemon does the work and writes the files; this only asks.

const Dock := preload("res://addons/companion/dock.gd")
const CONTEXT_MENU_SCRIPT := "res://addons/companion/context_menu.gd"
const FILESYSTEM_SLOT := 1  # EditorContextMenuPlugin.CONTEXT_SLOT_FILESYSTEM

var dock: Control
var context_menu: RefCounted


func _enter_tree() -> void:
	dock = Dock.new()
	add_control_to_dock(DOCK_SLOT_RIGHT_UL, dock)
	# Before 4.4 there is no context-menu API; the dock's "Use selected" serves instead.
	if ClassDB.class_exists("EditorContextMenuPlugin"):
		context_menu = load(CONTEXT_MENU_SCRIPT).new(dock)
		call("add_context_menu_plugin", FILESYSTEM_SLOT, context_menu)


func _exit_tree() -> void:
	if context_menu != null:
		call("remove_context_menu_plugin", context_menu)
		context_menu = null
	if dock != null:
		remove_control_from_docks(dock)
		dock.queue_free()
		dock = null
