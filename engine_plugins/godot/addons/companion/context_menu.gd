@tool
extends EditorContextMenuPlugin
## "Animate..." in the FileSystem dock's context menu (Godot 4.4 and later).

const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]

var dock: Node


func _init(animate_dock: Node) -> void:
	dock = animate_dock


func _popup_menu(paths: PackedStringArray) -> void:
	if paths.size() != 1 or not (paths[0].get_extension().to_lower() in IMAGE_EXTENSIONS):
		return
	add_context_menu_item("Animate...", _on_animate)


func _on_animate(paths: Array) -> void:
	if paths.is_empty():
		return
	dock.set_image(String(paths[0]))
	dock.quote()
