@tool
extends EditorContextMenuPlugin
## "Animate..." in the FileSystem dock's context menu (Godot 4.4 and later); with several
## pictures selected, "Animate as a batch...": one quote and one cap for all of them.

const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]

var dock: Node


func _init(animate_dock: Node) -> void:
	dock = animate_dock


func _popup_menu(paths: PackedStringArray) -> void:
	var pictures := Array(paths).filter(func(path: String) -> bool:
		return path.get_extension().to_lower() in IMAGE_EXTENSIONS)
	if pictures.size() != paths.size() or pictures.is_empty():
		return
	if pictures.size() == 1:
		add_context_menu_item("Animate...", _on_animate)
	else:
		add_context_menu_item("Animate as a batch...", _on_batch)


func _on_animate(paths: Array) -> void:
	if paths.is_empty():
		return
	dock.set_image(String(paths[0]))
	dock.quote()


func _on_batch(paths: Array) -> void:
	dock.batch.choose(Array(paths))
	dock.quote()
