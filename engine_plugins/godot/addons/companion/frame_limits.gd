@tool
extends RefCounted
## The dock's size, fps and seconds boxes held to the daemon's limits (GET /api/v1/status,
## "limits") and the chosen model's durations; frames = fps x seconds, capped at the
## daemon's maximum. Until the daemon gives its limits, each box holds its default only.

var width: SpinBox
var height: SpinBox
var fps: SpinBox
var seconds: SpinBox
## The most frames a one-click animation may have (limits.frame_count.max; 0: unknown).
var max_frames := 0
## The lengths the chosen model makes, within the daemon's limits (empty: any length in
## range). Seconds snaps to one of them: the service refuses any other length.
var lengths: Array[float] = []
## Seconds as the daemon's limits allow them, before the model's own durations narrow it.
var _seconds_range := Vector2.ZERO
## The last value Seconds held, so a step up or down moves to the next listed length.
var _last_seconds := 0.0
## The step the dock's Seconds box was made with.
var _grid := 0.5


func _init(width_box: SpinBox, height_box: SpinBox, fps_box: SpinBox, seconds_box: SpinBox) -> void:
	width = _lock(width_box, 256)
	height = _lock(height_box, 256)
	fps = _lock(fps_box, 12)
	seconds = _lock(seconds_box, 2)
	_last_seconds = seconds.value
	_grid = seconds.step
	seconds.value_changed.connect(_snap)


static func _lock(spin: SpinBox, value: float) -> SpinBox:
	spin.min_value = value
	spin.max_value = value
	spin.value = value
	spin.editable = false
	return spin


static func _limit(spin: SpinBox, low: Variant, high: Variant) -> void:
	var value := spin.value
	if low != null:
		spin.min_value = float(low)
	if high != null:
		spin.max_value = float(high)
	spin.value = clampf(value, spin.min_value, spin.max_value)
	spin.editable = true


## Sets every box from the daemon's limits, then the model's durations narrow Seconds.
func apply(limits: Dictionary, model_durations: Dictionary, model_lengths: Array) -> void:
	var size: Dictionary = limits.get("size", {})
	_limit(width, size.get("min"), size.get("max"))
	_limit(height, size.get("min"), size.get("max"))
	fps.min_value = 1
	_limit(fps, null, limits.get("fps", {}).get("max"))
	var bounds: Dictionary = limits.get("seconds", {})
	# The minimum duration is exclusive: the shortest offered is one step above it.
	var shortest: Variant = bounds.get("min")
	# No longest length from the daemon (the spec shows none): the box opens wide and
	# the chosen model's listed durations narrow it.
	_limit(seconds, null if shortest == null else float(shortest) + seconds.step,
		bounds.get("max", 3600.0))
	max_frames = int(limits.get("frame_count", {}).get("max", 0))
	_seconds_range = Vector2(seconds.min_value, seconds.max_value)
	narrow(model_durations, model_lengths)


## The chosen model's own durations ({min, max}) and listed lengths narrow the daemon's
## bounds on Seconds; with a list, Seconds holds only a listed length.
func narrow(bounds: Dictionary, listed: Array = []) -> void:
	if _seconds_range == Vector2.ZERO:
		return  # the daemon's limits are not known yet: the box stays locked
	var low := _seconds_range.x
	var high := _seconds_range.y
	if bounds.get("min") != null:
		low = maxf(low, float(bounds["min"]))
	if bounds.get("max") != null:
		high = minf(high, float(bounds["max"]))
	lengths.clear()
	for length: Variant in listed:
		if float(length) >= low and float(length) <= high:
			lengths.append(float(length))
	lengths.sort()
	if not lengths.is_empty():
		low = lengths[0]
		high = lengths[-1]
	var shown := PackedStringArray()
	seconds.step = _grid
	for length in lengths:
		shown.append(String.num(length).trim_suffix(".0"))
		# A listed length off the half-second grid must stay reachable.
		if not is_equal_approx(fmod(length, _grid), 0.0):
			seconds.step = 0.01
	seconds.tooltip_text = "" if lengths.is_empty() else \
		"This model makes videos of %s s." % ", ".join(shown)
	_limit(seconds, low, maxf(low, high))
	_snap(seconds.value)


## Moves Seconds to a listed length: the next one up when it went up, down when it went
## down, so the arrows step through the list and a typed length between two lands on one.
func _snap(value: float) -> void:
	if lengths.is_empty() or value in lengths:
		_last_seconds = value
		return
	var going_up := value > _last_seconds
	var snapped_to: float = lengths[-1] if going_up else lengths[0]
	if going_up:
		for length in lengths:
			if length >= value:
				snapped_to = length
				break
	else:
		for index in range(lengths.size() - 1, -1, -1):
			if lengths[index] <= value:
				snapped_to = lengths[index]
				break
	_last_seconds = snapped_to
	seconds.value = snapped_to


## {frames, asked, fps}: frames = fps x seconds, capped at the daemon's maximum.
func plan() -> Dictionary:
	var asked := maxi(1, roundi(fps.value * seconds.value))
	var frames := asked if max_frames <= 0 else mini(asked, max_frames)
	return {"frames": frames, "asked": asked, "fps": frames / seconds.value}


## Empty when the frames asked for fit; otherwise what the cap does to the animation.
func note() -> String:
	var planned := plan()
	if planned["frames"] == planned["asked"]:
		return ""
	return "%d fps x %s s is %d frames, more than the %d the daemon allows: the animation " \
		% [int(fps.value), str(seconds.value), planned["asked"], planned["frames"]] \
		+ "gets %d frames and plays at %.1f fps." % [planned["frames"], planned["fps"]]
