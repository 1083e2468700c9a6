@tool
extends Control
## A checkerboard behind the result, so what is transparent in it shows as squares and
## what is opaque covers them.

const SQUARE := 8.0
const LIGHT := Color(0.75, 0.75, 0.75)
const DARK := Color(0.5, 0.5, 0.5)


func _ready() -> void:
	resized.connect(queue_redraw)


func _draw() -> void:
	draw_rect(Rect2(Vector2.ZERO, size), LIGHT)
	var columns := int(ceil(size.x / SQUARE))
	var rows := int(ceil(size.y / SQUARE))
	for row in rows:
		for column in columns:
			if (row + column) % 2 == 1:
				draw_rect(Rect2(column * SQUARE, row * SQUARE, SQUARE, SQUARE), DARK)
