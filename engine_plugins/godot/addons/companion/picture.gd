@tool
extends RefCounted
## The picture the next request animates: its name in the form and its preview beside it,
## read from the file (it may not be imported yet).

const IMAGE_EXTENSIONS := ["png", "jpg", "jpeg", "webp"]

## The chosen image, a res:// path ("" until one is chosen).
var image_path := ""
## Its size in pixels (zero until read), and whether a pixel of it is not fully opaque.
var size := Vector2i.ZERO
var alpha := false
var _label: Label
var _preview: TextureRect


func _init(label: Label, preview: TextureRect) -> void:
	_label = label
	_preview = preview


static func is_image(path: String) -> bool:
	return path.get_extension().to_lower() in IMAGE_EXTENSIONS


## Takes the image and shows it; false (nothing changed) when the path is not an image.
func choose(path: String) -> bool:
	if not is_image(path):
		return false
	image_path = path
	_label.text = path.get_file()
	_label.tooltip_text = path
	var image := Image.load_from_file(ProjectSettings.globalize_path(path))
	var read := image != null and not image.is_empty()
	size = image.get_size() if read else Vector2i.ZERO
	alpha = read and image.detect_alpha() != Image.ALPHA_NONE
	_preview.texture = ImageTexture.create_from_image(image) if read else null
	return true


static func texture_of(path: String) -> Texture2D:
	var image := Image.load_from_file(ProjectSettings.globalize_path(path))
	return null if image == null or image.is_empty() else ImageTexture.create_from_image(image)
