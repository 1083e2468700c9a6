@tool
extends RefCounted
## What every scenario the harness runs (studio.gd, live.gd) works with: the harness, the
## dock, what it records and the plan.

var h: EditorPlugin
var dock: Node
var out: Dictionary
var plan: Dictionary


func take(harness: EditorPlugin) -> void:
	h = harness
	dock = h.dock
	out = h.out
	plan = h.plan
