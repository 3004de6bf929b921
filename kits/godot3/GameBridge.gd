# GameBridge: the game side of the game-bridge contract for Godot 3 (3.2+), as an autoload.
# See docs/KITS.md. Add this file as an autoload named GameBridge, start the game with
# `godot --path . -- --debug-port=7820`, and from your main scene:
#
#   GameBridge.configure({"name": "Walker", "version": "1.0.0", "inputs": ["left", "right"], "manifest": {...}})
#   GameBridge.set_snapshot(self, "snapshot")            # func snapshot() -> Dictionary
#   GameBridge.add_command("jump", self, "_on_jump")     # func _on_jump(args: Dictionary); return a String to fail
#   if GameBridge.is_held("right"): ...                  # in _physics_process
#
# Two threads. The main thread, in this node's _physics_process (autoloads come first in the
# tree), applies the queued commands, runs the clock and publishes the frame: /health, /state,
# /ui and /world serialized once, swapped in whole under a mutex. A server thread answers HTTP
# between frames from that last publication, so a request never waits for the next frame; it
# only validates and queues commands, never touches the scene. A /screenshot request is the one
# that waits: the main thread copies the viewport once it has drawn the next frame, and the
# server thread encodes that copy as PNG. The headless server build draws nothing, so there it
# answers 404 and the bridge says the game gives no frames. The clock pauses the SceneTree
# (this node keeps processing), so game code in _physics_process simply stops; `clock.step N`
# lets exactly N physics frames through.
#
# The UI tree needs no game code: every Control in the scene (buttons, labels, text fields,
# check boxes, sliders, option buttons, tabs...) with its text, state and rect, its id its node
# path. World objects are the nodes the game adds to the group "gamebridge_world".
#
# Pointer, touch, analog axes and text (optional): configure({"axes": [{"name": "walk", "min": -1,
# "max": 1}], "pointer": true, "touch": true, "text": true}). The kit turns each command into
# the engine's own input events through Input.parse_input_event, on the frame that applies it,
# so the game's _input, _unhandled_input and Controls see them:
# InputEventMouseMotion / InputEventMouseButton (wheel too), InputEventScreenTouch /
# InputEventScreenDrag, InputEventJoypadMotion (device 0, axis "joy_axis" or the axis's place in
# "axes") and InputEventKey presses carrying each typed character (the focused LineEdit takes
# them). GameBridge.axis(name), pointer(), touches() and take_text() answer too, and so do
# Godot's own queries (Input.is_mouse_button_pressed, get_mouse_position, get_joy_axis(0, ...)),
# since Input keeps its state from parsed events.
extends Node

signal close_requested(reason)  # connect to override the default exit (get_tree().quit())

const RESERVED := ["input.hold", "input.release", "input.releaseAll", "input.axis", "input.pointer", "input.click", "input.wheel",
	"input.touch", "input.text", "clock.pause", "clock.resume", "clock.step", "ui.activate", "ui.setValue", "ui.focus"]
# the capability each reserved command needs (the rest: the part before the dot)
const NEEDS := {"input.axis": "axis", "input.pointer": "pointer", "input.click": "pointer", "input.wheel": "pointer", "input.touch": "touch",
	"input.text": "text"}
const INPUT_CAPS := ["input", "axis", "pointer", "touch", "text"]
const MAX_COORD := 65535.0  # screenshot pixels
const MAX_WHEEL := 10000.0
const MAX_TOUCH_ID := 9
const MAX_CLICKS := 3  # a triple click is the most any game reads
const MAX_TEXT := 1000
const BUTTONS := [[1, BUTTON_LEFT], [2, BUTTON_RIGHT], [4, BUTTON_MIDDLE]]  # contract bit, Godot button
const MAX_LEASE_MS := 3600000   # a hold is meant to end; the bridge re-holds
const MAX_STEP_FRAMES := 10000  # later commands wait behind a step, so keep it bounded
const MAX_REQUEST_BYTES := 65536
const REQUEST_TIMEOUT_MS := 10000
const MAX_PEERS := 64          # when full, a new connection closes the oldest one still waiting for its request
const START_PAUSED_ENV := "GAME_BRIDGE_START_PAUSED"  # 1: start with the clock paused at simFrame 0
const MAX_RESULTS := 32
const ERRORS_KEPT := 64  # errors the kit saw, served on /errors (the bridge counts repeats)
const FRAMES_KEPT := 3600       # frame times GET /frames serves: a minute at 60 frames a second
const MAX_STALL_MS := 1000      # the longest frames.stall
const STALL := "frames.stall"   # holds the main thread on a frame: a slow frame to see in frame_stats
const IDLE_POLL_USEC := 500     # how long the server thread sleeps when nothing arrived
const WORLD_GROUP := "gamebridge_world"
const SHOT_TIMEOUT_MS := 5000   # no frame drawn by then (a minimized window): 503, try again
const PLAYER_GROUP := "gamebridge_player"  # world objects a player can see

var port := 0
var frame := 0
var sim_frame := 0
var session_epoch := 1
var capabilities := ["clock", "ui", "world"]  # "input" too once configure() names the inputs
var registry_file := ""

var _info := {"name": "", "version": "0.0.0", "protocol": 1}
var _manifest = null        # Dictionary served at /tools, or null (404)
var _inputs = null          # Array of the input names the game reads, or null (no "input" capability)
var _clock := true
var _ui := true
var _world := true
var _snapshot_target: Object = null
var _snapshot_method := ""
var _commands := {}         # name -> [target, apply method, validate method or ""]
var _server := TCP_Server.new()
var _pending := []          # [id, cmd, args], the main thread's
var _completed := 0
var _results := []          # [{id, ok, error?}], the most recent MAX_RESULTS
var _errors := []           # [{seq, frame, message, source}], the most recent ERRORS_KEPT
var _error_seq := 0
var _held := {}             # "input\nowner" -> {input, owner, until (msec)}
var _axes := []             # [{name, min, max, joy_axis}]
var _axis_holds := []       # [{input, owner, value, until}] in hold order: the latest wins
var _axis_told := {}        # name -> the value the game last heard
var _pointer := {"x": 0.0, "y": 0.0, "buttons": 0}
var _buttons_of := {}    # owner -> the buttons that owner holds; one mouse: down is every owner's together
var _touches := {}          # id -> {x, y, owner}
var _text := ""
var _paused := false
var _step_left := 0
var _step_id := 0
var _click := {}            # a click in progress: {id, owner, x, y, bit, left: the presses and lifts to come}
var _simulated_last := false
var _closing := false
var _sequence := 0
var _ui_content := ""
var _ui_revision := 0
var _world_content := ""
var _world_revision := 0
var _last_state := {}       # the game's own snapshot, as last published

# Shared with the server thread, only under _mutex.
var _mutex := Mutex.new()
var _frames := []             # [frame, simFrame, ms] of recent frames, from one physics tick to the next (under _mutex)
var _frames_at := 0           # where the next one goes once the ring is full
var _frame_start := -1        # the current frame's start, usec
var _stall := []              # [frame, ms] to hold the main thread for
var _thread: Thread = null
var _stop := false
var _incoming := []         # [id, cmd, args] queued by the server thread
var _next_id := 1
var _pub := {}              # path -> JSON text of the last publication, and "frame"
var _shot_asked := 0        # the number of the latest /screenshot request
var _shot_taken := 0        # the request number the last copy of the viewport was taken for
var _shot_image: Image = null  # that copy, handed to the server thread to encode and send

# True when this build draws frames (a renderer, not the headless server build).
var draws := not OS.has_feature("Server")

# The server thread's own.
var _peers := []            # [{peer, text, since}]
var _shot_waiters := []     # [{peer, since, ticket}]: /screenshot requests waiting for a frame drawn after them


# Binds the debug port when one is given; a bad one ends the game with code 2, a busy one is
# said on stderr and ends it with code 1 (whatever holds the port would be taken for the game).
func _ready() -> void:
	pause_mode = Node.PAUSE_MODE_PROCESS
	_info.name = ProjectSettings.get_setting("application/config/name")
	var arg := _port_argument()
	if arg == "":
		set_physics_process(false)  # no flag, no HTTP surface
		return
	if not arg.is_valid_integer() or int(arg) < 1 or int(arg) > 65535:
		_fail("--debug-port must be a port number (1-65535), got '%s'" % arg)
		return
	port = int(arg)
	var err := _server.listen(port, "127.0.0.1")
	if err != OK:
		# Whatever holds the port would be taken for this game: say so and end.
		printerr("GameBridge: cannot listen on 127.0.0.1:%d (error %d: the port is probably in use); the game exits, since whatever holds the port would be taken for it" % [port, err])
		set_physics_process(false)
		get_tree().quit(1)
		return
	print("GameBridge: listening on 127.0.0.1:%d" % port)
	if draws:
		VisualServer.connect("frame_post_draw", self, "_take_shot")
	# The bridge launched the game paused: the tree waits, so its first frame is one the bridge steps.
	if OS.get_environment(START_PAUSED_ENV) == "1":
		_paused = true
		get_tree().paused = true
	call_deferred("_write_registry_entry")  # after the main scene's configure()


# --- the game's side ------------------------------------------------------------------------
# name, version, protocol; inputs (Array: the names the game reads, declares "input");
# clock (bool, default true: the agent may pause and step); ui and world (bool, default true:
# publish the scene's Controls and the "gamebridge_world" group); manifest (Dictionary for /tools).
func configure(options: Dictionary) -> void:
	for key in ["name", "version", "protocol"]:
		if options.has(key):
			_info[key] = options[key]
	_inputs = options.get("inputs", _inputs)
	_clock = options.get("clock", _clock)
	if not _clock and _paused:  # no agent clock: nothing could ever step it
		_paused = false
		get_tree().paused = false
	_ui = options.get("ui", _ui)
	_world = options.get("world", _world)
	_manifest = options.get("manifest", _manifest)
	if options.has("axes"):
		_axes = []
		for a in options.axes:
			if typeof(a) != TYPE_DICTIONARY or not a.has("name") or float(a.get("min", 0)) > 0 or float(a.get("max", 0)) < 0 or float(a.get("min", 0)) >= float(a.get("max", 0)):
				push_error("GameBridge: an axis is {name, min, max} with min <= 0 <= max and min < max, got %s" % str(a))
				continue
			_axes.append({"name": str(a.name), "min": float(a.min), "max": float(a.max), "joy_axis": int(a.get("joy_axis", _axes.size()))})
			_axis_told[str(a.name)] = 0.0
	var caps := []
	if _inputs != null:
		caps.append("input")
	if not _axes.empty():
		caps.append("axis")
	for c in ["pointer", "touch", "text"]:
		if options.get(c, capabilities.has(c)):
			caps.append(c)
	if _clock:
		caps.append("clock")
	if _ui:
		caps.append("ui")
	if _world:
		caps.append("world")
	capabilities = caps


func set_snapshot(target: Object, method: String) -> void:
	_snapshot_target = target
	_snapshot_method = method


# apply: func(args); it runs on the main thread and fails the command by returning a String
# (GDScript has no exceptions to catch). validate (optional): func(args) -> String, "" to
# accept; it runs on the server thread when the request arrives, so it must only read args.
func add_command(name: String, target: Object, apply: String, validate := "") -> void:
	if name == "close" or name.begins_with("input.") or name.begins_with("clock.") or name.begins_with("ui."):
		push_error("GameBridge: command name '%s' is reserved (close, input.*, clock.* and ui.* are the kit's)" % name)
		return
	_commands[name] = [target, apply, validate]


func is_held(input_name: String) -> bool:
	for h in _held.values():
		if h.input == input_name:
			return true
	return false


# A declared axis's value now: the latest owner's hold, 0 at rest.
func axis(name: String) -> float:
	var now := OS.get_ticks_msec()
	var value := 0.0
	for h in _axis_holds:
		if h.input == name and h.until > now:
			value = h.value
	return value


# {x, y, buttons}: the agent's pointer in viewport pixels, buttons 1 left, 2 right, 4 middle.
func pointer() -> Dictionary:
	return _pointer.duplicate()


# [{id, x, y}]: the touch points down now, by id.
func touches() -> Array:
	var ids := _touches.keys()
	ids.sort()
	var out := []
	for id in ids:
		out.append({"id": id, "x": _touches[id].x, "y": _touches[id].y})
	return out


# The text typed since the last call, emptied (the key events went to the focused Control too).
func take_text() -> String:
	var t := _text
	_text = ""
	return t


# A new run or level in the same process: waits that span it fail instead of lying.
func new_epoch() -> void:
	session_epoch += 1


func is_paused() -> bool:
	return _paused


# --- the frame (main thread) -----------------------------------------------------------------
func _physics_process(_delta: float) -> void:
	frame += 1
	_time_frame()
	if _simulated_last:  # the previous physics frame ran the game: count it
		sim_frame += 1
		if _step_left > 0:
			_step_left -= 1
			if _step_left == 0:  # complete only once its frames have run
				_completed = _step_id
	_expire_leases()
	_click_tick()  # a click's next press or lift comes before any later command
	_apply_queue()
	_tell_axes()
	_publish()
	if _thread == null:  # first frame: configure() has run and there is a publication to serve
		_thread = Thread.new()
		_thread.start(self, "_serve_loop")
	var simulate := not _paused or _step_left > 0
	if simulate != _simulated_last:  # only on a change, so a game's own pausing is not undone every frame
		get_tree().paused = not simulate
	_simulated_last = simulate


# A tick starts: the previous frame's time is known now; hold the thread if a stall is due.
func _time_frame() -> void:
	var now := OS.get_ticks_usec()
	if _frame_start >= 0:
		var entry := [frame - 1, sim_frame, (now - _frame_start) / 1000.0]
		_mutex.lock()
		if _frames.size() < FRAMES_KEPT:
			_frames.append(entry)
		else:
			_frames[_frames_at] = entry
			_frames_at = (_frames_at + 1) % FRAMES_KEPT
		_mutex.unlock()
	_frame_start = now
	if not _stall.empty() and _stall[0] == frame:
		OS.delay_msec(_stall[1])
		_stall = []


# GET /frames (server thread): the kept frame times after frame `since`, oldest first.
func frames_since(since: float) -> Dictionary:
	var out := []
	_mutex.lock()
	var n := _frames.size()
	for i in range(n):
		var f = _frames[(_frames_at + i) % n]
		if f[0] > since:
			out.append({"frame": f[0], "simFrame": f[1], "ms": stepify(f[2], 0.001)})
	_mutex.unlock()
	return {"frames": out, "kept": FRAMES_KEPT}


# In order; a clock.step holds back what follows until its frames have run.
func _apply_queue() -> void:
	_mutex.lock()
	_pending += _incoming
	_incoming = []
	_mutex.unlock()
	while not _pending.empty() and _step_left == 0 and _click.empty():
		var c = _pending.pop_front()
		var error = _apply(c[0], c[1], c[2])
		var result := {"id": c[0], "ok": true}
		if typeof(error) == TYPE_STRING and error != "":
			result = {"id": c[0], "ok": false, "error": error.left(500)}  # bounded, as every kit
			# GDScript throws nothing: a command's error is what its handler returned (no stack)
			_error_seq += 1
			_errors.append({"seq": _error_seq, "frame": frame, "message": error.left(500), "source": "command"})
			if _errors.size() > ERRORS_KEPT:
				_errors.pop_front()
		_results.append(result)
		if _results.size() > MAX_RESULTS:
			_results.pop_front()
		if _step_left == 0 and not _click_pressing():
			_completed = c[0]


# A click still has a press to come: it completes on the tick of its last press.
func _click_pressing() -> bool:
	return not _click.empty() and _click["left"].has("press")


# input.click's next press or lift, one a physics frame, so a game that polls the button sees
# each press for a frame; later commands wait until the click has lifted.
func _click_tick() -> void:
	if _click.empty():
		return
	var c := _click
	var phase: String = c["left"].pop_front()
	var mine: int = _buttons_of.get(c["owner"], 0)
	var bit: int = c["bit"]
	_move_pointer(c["x"], c["y"], (mine | bit) if phase == "press" else (mine & ~bit), c["owner"])
	if c["left"].empty():
		_click = {}
	if phase == "press" and not c["left"].has("press"):
		_completed = c["id"]


# Returns "" or the reason the command failed.
func _apply(id: int, cmd: String, args: Dictionary):
	var who: String = args.get("owner", "")
	match cmd:
		"input.hold":
			var until := OS.get_ticks_msec() + int(ceil(float(args.leaseMs)))
			_held[args.input + "\n" + who] = {"input": args.input, "owner": who, "until": until}
		"input.release":
			_held.erase(args.input + "\n" + who)
			_drop_axis_holds(args.input, who)
		"input.releaseAll":
			for key in _held.keys():
				if _held[key].owner == who:
					_held.erase(key)
			_drop_axis_holds("", who)
			if _buttons_of.has(who):
				_move_pointer(_pointer.x, _pointer.y, 0, who)
			for t in touches():
				if _touches[t.id].owner == who:
					_apply_touch(t.id, "up", t.x, t.y, who)
		"input.axis":
			_drop_axis_holds(args.input, who)  # re-added last: the latest hold wins
			_axis_holds.append({"input": args.input, "owner": who, "value": float(args.value),
				"until": OS.get_ticks_msec() + int(ceil(float(args.leaseMs)))})
		"input.pointer":
			_move_pointer(float(args.x), float(args.y), int(args.buttons), who)
		"input.click":  # down now, up on the next physics frame (_click_tick), `count` times
			var left := []
			for _i in int(args["count"]):
				left += ["press", "lift"]
			_click = {"id": id, "owner": who, "x": float(args["x"]), "y": float(args["y"]), "bit": int(args["button"]), "left": left}
			_click_tick()
		"input.wheel":
			_wheel(float(args.dx), float(args.dy))
		"input.touch":
			return _apply_touch(int(args.id), args.phase, float(args.x), float(args.y), who)
		"input.text":
			_type(args.text)
		"clock.pause":
			_paused = true
		"clock.resume":
			_paused = false
		"clock.step":
			_paused = true
			_step_left = int(args.frames)
			_step_id = id
		"ui.activate", "ui.setValue", "ui.focus":
			return _apply_ui(cmd, args)
		"frames.stall":
			var at := int(args.get("frame", str(frame)))
			if at < frame:
				return "frame %d has passed (the game is at frame %d)" % [at, frame]
			_stall = [at, int(args.ms)]
			if at == frame:
				OS.delay_msec(int(args.ms))
				_stall = []
		"close":
			_request_close("command")
		_:
			var c = _commands[cmd]
			return c[0].call(c[1], args)
	return ""


func _expire_leases() -> void:
	var now := OS.get_ticks_msec()
	for key in _held.keys():
		if _held[key].until <= now:
			_held.erase(key)
	for i in range(_axis_holds.size() - 1, -1, -1):
		if _axis_holds[i].until <= now:
			_axis_holds.remove(i)


# Drops `who`'s holds of axis `name` ("" for all its axes).
func _drop_axis_holds(name: String, who: String) -> void:
	for i in range(_axis_holds.size() - 1, -1, -1):
		if _axis_holds[i].owner == who and (name == "" or _axis_holds[i].input == name):
			_axis_holds.remove(i)


# --- the agent's inputs as the engine's input events (main thread) ----------------------------
# A joypad motion event for each axis whose value changed (set, released, lease over).
func _tell_axes() -> void:
	for a in _axes:
		var v := axis(a.name)
		if v != _axis_told.get(a.name, 0.0):
			_axis_told[a.name] = v
			var e := InputEventJoypadMotion.new()
			e.device = 0
			e.axis = a.joy_axis
			e.axis_value = v
			Input.parse_input_event(e)


func _button_mask(buttons: int) -> int:
	var mask := 0
	for b in BUTTONS:
		if buttons & b[0]:
			mask |= 1 << (b[1] - 1)
	return mask


# Moves the pointer and sets `who`'s buttons, then presses and lifts the buttons that changed.
# One mouse: a button is down while any owner holds it.
func _move_pointer(x: float, y: float, mine: int, who: String) -> void:
	if mine != 0:
		_buttons_of[who] = mine
	else:
		_buttons_of.erase(who)
	var buttons := 0
	for held in _buttons_of.values():
		buttons |= int(held)
	var at := Vector2(x, y)
	var before: int = _pointer.buttons
	if x != _pointer.x or y != _pointer.y:
		var m := InputEventMouseMotion.new()
		m.position = at
		m.global_position = at
		m.relative = at - Vector2(_pointer.x, _pointer.y)
		m.button_mask = _button_mask(before)
		Input.parse_input_event(m)
	_pointer = {"x": x, "y": y, "buttons": buttons}
	for b in BUTTONS:
		if (before ^ buttons) & b[0]:
			var e := InputEventMouseButton.new()
			e.position = at
			e.global_position = at
			e.button_index = b[1]
			e.pressed = (buttons & b[0]) != 0
			e.button_mask = _button_mask(buttons)
			Input.parse_input_event(e)


# One wheel turn at the pointer: a press and release of the wheel "buttons", 100 pixels a
# notch as the factor; a page's dy > 0 scrolls down.
func _wheel(dx: float, dy: float) -> void:
	var at := Vector2(_pointer.x, _pointer.y)
	for pair in [[dy, BUTTON_WHEEL_DOWN, BUTTON_WHEEL_UP], [dx, BUTTON_WHEEL_RIGHT, BUTTON_WHEEL_LEFT]]:
		if pair[0] == 0:
			continue
		for pressed in [true, false]:
			var e := InputEventMouseButton.new()
			e.position = at
			e.global_position = at
			e.button_index = pair[1] if pair[0] > 0 else pair[2]
			e.factor = abs(pair[0]) / 100.0
			e.pressed = pressed
			Input.parse_input_event(e)


# Returns "" or why the touch cannot happen.
func _apply_touch(id: int, phase: String, x: float, y: float, who: String) -> String:
	var at := Vector2(x, y)
	if phase == "down":
		if _touches.has(id):
			return "touch %d is already down (send phase move or up)" % id
		_touches[id] = {"x": x, "y": y, "owner": who}
	elif not _touches.has(id):
		return "touch %d is not down (send phase down first)" % id
	if phase == "move":
		var d := InputEventScreenDrag.new()
		d.index = id
		d.position = at
		d.relative = at - Vector2(_touches[id].x, _touches[id].y)
		_touches[id] = {"x": x, "y": y, "owner": who}
		Input.parse_input_event(d)
		return ""
	if phase == "up":
		_touches.erase(id)
	var t := InputEventScreenTouch.new()
	t.index = id
	t.position = at
	t.pressed = phase == "down"
	Input.parse_input_event(t)
	return ""


# Each character as a key press and release carrying it: the focused LineEdit or TextEdit
# inserts it, as it would a player's typing.
func _type(text: String) -> void:
	_text = (_text + text).right(max(0, _text.length() + text.length() - MAX_TEXT))
	for i in text.length():
		for pressed in [true, false]:
			var k := InputEventKey.new()
			k.unicode = text.ord_at(i)
			k.pressed = pressed
			Input.parse_input_event(k)


func _request_close(reason: String) -> void:
	if _closing:
		return
	_closing = true
	if get_signal_connection_list("close_requested").empty():
		get_tree().quit()
	else:
		emit_signal("close_requested", reason)


# Serializes this frame once and swaps it in whole: every answer until the next frame reads it.
func _publish() -> void:
	_sequence += 1
	var pub := {"frame": frame, "/health": to_json(health()), "/state": to_json(state())}
	# The game's configuration as of this frame, for the server thread (it never reads it live).
	pub["known"] = known()
	pub["inputs"] = _inputs.duplicate() if _inputs != null else []
	pub["axes"] = _axes.duplicate(true)
	pub["commands"] = _commands.duplicate()
	pub["errors"] = _errors.duplicate(true)
	pub["error_seq"] = _error_seq
	var m = tools()
	if m != null:
		pub["/tools"] = to_json(m)
	if _ui:
		var nodes := []
		for child in get_tree().root.get_children():
			_ui_nodes(child, nodes)
		var content := {"nodes": nodes}
		var screen := _screen()
		if screen != "":
			content["screen"] = screen
		var text := to_json(content)
		if text != _ui_content:
			_ui_content = text
			_ui_revision += 1
		content["sessionEpoch"] = session_epoch
		content["frameSequence"] = _sequence
		content["revision"] = _ui_revision
		pub["/ui"] = to_json(content)
	if _world:
		var objects := []
		for n in get_tree().get_nodes_in_group(WORLD_GROUP):
			objects.append(_world_object(n))
		var text := to_json(objects)
		if text != _world_content:
			_world_content = text
			_world_revision += 1
		pub["/world"] = to_json({"sessionEpoch": session_epoch, "frameSequence": _sequence,
			"revision": _world_revision, "objects": objects})
	_mutex.lock()
	_pub = pub
	_mutex.unlock()


# The screen is the one the game's snapshot names (ui.screen), else the current scene's name.
func _screen() -> String:
	var ui = _last_state.get("ui")
	if typeof(ui) == TYPE_DICTIONARY and typeof(ui.get("screen")) == TYPE_STRING:
		return ui.screen
	var scene = get_tree().current_scene
	return scene.name if scene != null else ""


# --- what the wire reads (built on the main thread) -----------------------------------------
func health() -> Dictionary:
	return {"ok": true, "frame": frame, "capabilities": capabilities, "sessionEpoch": session_epoch}


func state() -> Dictionary:
	var s := {}
	if _snapshot_target != null:
		s = _snapshot_target.call(_snapshot_method).duplicate()
	_last_state = s
	var now := OS.get_ticks_msec()
	var any_input := false
	for c in INPUT_CAPS:
		any_input = any_input or capabilities.has(c)
	if any_input:
		var held := []
		for h in _held.values():
			held.append({"input": h.input, "owner": h.owner, "leaseMsLeft": max(0, h.until - now)})
		for h in _axis_holds:
			if h.until > now:
				held.append({"input": h.input, "owner": h.owner, "leaseMsLeft": max(0, h.until - now), "value": h.value})
		s["input"] = {"held": held}
		if not _axes.empty():
			var values := {}
			for a in _axes:
				values[a.name] = axis(a.name)
			s["input"]["axes"] = values
		if capabilities.has("pointer"):
			s["input"]["pointer"] = _pointer.duplicate()
		if capabilities.has("touch"):
			s["input"]["touches"] = touches()
	s["frame"] = frame
	s["simFrame"] = sim_frame
	s["completedCommandId"] = _completed
	s["commandResults"] = _results.duplicate()
	s["sessionEpoch"] = session_epoch
	s["clock"] = {"paused": _paused, "stepFramesLeft": _step_left}
	return s


func tools():
	if _manifest == null:
		return null
	var m: Dictionary = _manifest.duplicate(true)
	var game: Dictionary = m.get("game", {"name": _info.name, "version": _info.version, "protocol": _info.protocol})
	game["capabilities"] = capabilities
	if _inputs != null:
		game["inputs"] = _inputs
	if not _axes.empty():
		var axes := []
		for a in _axes:
			axes.append({"name": a.name, "min": a.min, "max": a.max})
		game["axes"] = axes
	for c in ["pointer", "touch", "text"]:
		if capabilities.has(c):
			game[c] = true
	m["game"] = game
	return m


func known() -> Array:
	var names: Array = _commands.keys()
	names.sort()
	names.append("close")
	var any_input := false
	for c in INPUT_CAPS:
		any_input = any_input or capabilities.has(c)
	for r in RESERVED:
		if capabilities.has(NEEDS.get(r, r.split(".")[0])) or (any_input and (r == "input.release" or r == "input.releaseAll")):
			names.append(r)
	names.append(STALL)
	return names


# --- the UI tree, from the scene ---------------------------------------------------------------
# Appends the node for `n` (a Control) or, for anything else, the nodes of its children.
func _ui_nodes(n: Node, out: Array) -> void:
	if n is CanvasItem and not n is Control and not n.visible:
		return  # a hidden Node2D hides the Controls under it
	if not n is Control:
		for child in n.get_children():
			_ui_nodes(child, out)
		return
	var c: Control = n
	var node := _ui_node(c)
	if not c.visible:
		if not node.empty():
			node["visible"] = false
			out.append(node)
		return  # nothing under a hidden Control shows
	var children := []
	if c is TabContainer:
		children = _tabs(c, c.get_tab_count(), c.current_tab, "get_tab_title")
	elif c is Tabs:
		children = _tabs(c, c.get_tab_count(), c.current_tab, "get_tab_title")
	for child in c.get_children():
		_ui_nodes(child, children)
	if node.empty():  # a container or bare Control: its children stand in its place
		if children.size() > 1 and (c is Container or c is Panel or c is PanelContainer):
			node = {"id": _id(c), "role": "group", "name": c.hint_tooltip if c.hint_tooltip != "" else c.name}
		else:
			out += children
			return
	if not children.empty():
		node["children"] = children
	out.append(node)


func _tabs(c: Control, count: int, current: int, title: String) -> Array:
	var tabs := []
	for i in count:
		var tab := {"id": "%s#tab%d" % [_id(c), i], "role": "tab", "name": c.call(title, i)}
		if i == current:
			tab["selected"] = true
		tabs.append(tab)
	return tabs


# The node's own fields, or {} for a Control a player does not read (a container, a rect).
func _ui_node(c: Control) -> Dictionary:
	var node := {}
	var label: String = c.hint_tooltip if c.hint_tooltip != "" else c.name
	if c is OptionButton:
		node = {"role": "combobox", "name": label, "value": c.text}
	elif c is CheckBox or c is CheckButton:
		node = {"role": "checkbox", "name": c.text if c.text != "" else label, "checked": c.pressed}
	elif c is LinkButton:
		node = {"role": "link", "name": c.text if c.text != "" else label}
	elif c is BaseButton:
		node = {"role": "button", "name": c.text if c is Button and c.text != "" else label}
		if c.toggle_mode:
			node["checked"] = c.pressed
	elif c is LineEdit:
		node = {"role": "textbox", "name": c.placeholder_text if c.placeholder_text != "" else label, "value": c.text}
		if not c.editable:
			node["enabled"] = false
	elif c is TextEdit:
		node = {"role": "textbox", "name": label, "value": c.text}
		if c.readonly:
			node["enabled"] = false
	elif c is Label or c is RichTextLabel:
		var text: String = c.text
		if text == "":
			return {}
		node = {"role": "text", "name": text}
	elif c is SpinBox:
		node = {"role": "spinbutton", "name": label, "value": c.value, "min": c.min_value, "max": c.max_value}
		if not c.editable:
			node["enabled"] = false
	elif c is Slider:
		node = {"role": "slider", "name": label, "value": c.value, "min": c.min_value, "max": c.max_value}
		if not c.editable:
			node["enabled"] = false
	elif c is ProgressBar:
		node = {"role": "progressbar", "name": label, "value": c.value, "min": c.min_value, "max": c.max_value}
	elif c is TabContainer or c is Tabs:
		node = {"role": "tablist", "name": label}
	elif c is ItemList:
		node = {"role": "listbox", "name": label}
		var items := []
		for i in c.get_item_count():
			var item := {"id": "%s#item%d" % [_id(c), i], "role": "option", "name": c.get_item_text(i)}
			if c.is_selected(i):
				item["selected"] = true
			items.append(item)
		node["children"] = items
	elif c is WindowDialog:
		node = {"role": "dialog", "name": c.window_title if c.window_title != "" else label}
	else:
		return {}
	node["id"] = _id(c)
	if c is BaseButton and c.disabled:
		node["enabled"] = false
	if c.has_focus():
		node["focused"] = true
	var xf := c.get_global_transform_with_canvas()
	var size := c.rect_size * xf.get_scale()
	node["rect"] = [round(xf.origin.x), round(xf.origin.y), round(size.x), round(size.y)]
	return node


func _id(n: Node) -> String:
	return str(get_tree().root.get_path_to(n))


func _world_object(n: Node) -> Dictionary:
	var o := {"id": _id(n), "type": n.get_meta("type") if n.has_meta("type") else n.get_class(), "name": n.name}
	if n is Node2D:
		o["pos"] = [n.global_position.x, n.global_position.y]
	elif n is Spatial:
		var p: Vector3 = n.global_transform.origin
		o["pos"] = [p.x, p.y, p.z]
	var tags := []
	for g in n.get_groups():
		if g != WORLD_GROUP and g != PLAYER_GROUP and not str(g).begins_with("_"):
			tags.append(str(g))
	if not tags.empty():
		o["tags"] = tags
	if n.has_method("gamebridge_props"):
		o["props"] = n.gamebridge_props()
	if n.is_in_group(PLAYER_GROUP):
		o["player"] = true
	return o


# ui.* on the main thread: the node is looked up and re-checked now, as it is on this frame.
func _apply_ui(cmd: String, args: Dictionary) -> String:
	var id: String = args.id
	var base := id.split("#")[0]
	var n = get_tree().root.get_node_or_null(NodePath(base)) if base != "" else null
	if n == null or not n is Control:
		return "no UI node '%s'" % id
	var c: Control = n
	# The node's name and role as /ui shows them, so an error names what the agent read.
	var shown := _ui_node(c)
	var name := str(shown.get("name", ""))
	if name == "":
		name = id
	var what := "'%s' (%s)" % [name, shown.get("role", "group")]
	if not c.visible:  # published with visible false
		return "'%s' is hidden" % name
	if not c.is_visible_in_tree():  # under a hidden parent: left out of the tree
		return "no UI node '%s'" % id
	if (c is BaseButton and c.disabled) or ((c is LineEdit or c is Range) and "editable" in c and not c.editable):
		return "'%s' is disabled" % name
	if id.find("#tab") >= 0 and (c is TabContainer or c is Tabs):
		var i := int(id.split("#tab")[1])
		if i < 0 or i >= c.get_tab_count():
			return "no UI node '%s'" % id
		if cmd == "ui.focus":
			c.grab_focus()
		else:
			c.current_tab = i
		return ""
	match cmd:
		"ui.focus":
			if c.focus_mode == Control.FOCUS_NONE:
				return "%s cannot take focus" % what
			c.grab_focus()
		"ui.activate":
			if not c is BaseButton:
				return "%s cannot be activated" % what
			var b: BaseButton = c
			if b.toggle_mode:
				b.pressed = not b.pressed  # emits toggled, as a click does
			b.emit_signal("pressed")
		"ui.setValue":
			return _set_value(c, name, what, str(args.value))
	return ""


func _set_value(c: Control, name: String, what: String, value: String) -> String:
	if c is OptionButton:
		for i in c.get_item_count():
			if c.get_item_text(i) == value:
				c.select(i)
				c.emit_signal("item_selected", i)
				return ""
		var options := []
		for i in c.get_item_count():
			options.append(c.get_item_text(i))
		return "'%s' has no option '%s' (options: %s)" % [name, value.left(40), PoolStringArray(options).join(", ")]
	if c is BaseButton and (c.toggle_mode or c is CheckBox or c is CheckButton):
		if value != "true" and value != "false":
			return "'%s' takes true or false, got '%s'" % [name, value.left(40)]
		c.pressed = value == "true"
		return ""
	if c is LineEdit:
		c.text = value
		c.emit_signal("text_changed", value)
		return ""
	if c is TextEdit:
		c.text = value
		return ""
	if c is Range:
		var v := float(value) if value.is_valid_float() else NAN
		if is_nan(v) or is_inf(v):
			return "'%s' takes a number, got '%s'" % [name, value.left(40)]
		if v < c.min_value or v > c.max_value:
			return "'%s' takes %s to %s, got %s" % [name, str(c.min_value), str(c.max_value), str(v)]
		c.value = v  # emits value_changed
		return ""
	return "%s takes no value" % what


# --- the server thread: HTTP over TCP_Server, GET only, Connection: close --------------------
# After each drawn frame (main thread): a copy of the viewport for the /screenshot requests
# made before it, so a picture is never older than its request. The texture is upside down.
func _take_shot() -> void:
	_mutex.lock()
	var wanted := _shot_asked
	_mutex.unlock()
	if wanted == _shot_taken:
		return
	var image := get_viewport().get_texture().get_data()
	image.flip_y()
	image.convert(Image.FORMAT_RGB8)
	_mutex.lock()
	_shot_image = image
	_shot_taken = wanted
	_mutex.unlock()


func _serve_loop(_userdata) -> void:
	while true:
		_mutex.lock()
		var stop := _stop
		_mutex.unlock()
		if stop:
			return
		var shot := _send_shots()
		if not _serve() and not shot:
			OS.delay_usec(IDLE_POLL_USEC)


# Answers the /screenshot requests the last copy of the viewport was taken for (server thread,
# which encodes the PNG off the main thread); true when it sent one.
func _send_shots() -> bool:
	if _shot_waiters.empty():
		return false
	_mutex.lock()
	var image := _shot_image
	var taken := _shot_taken
	_shot_image = null
	_mutex.unlock()
	var png := PoolByteArray()
	if image != null:
		png = image.save_png_to_buffer()
	var now := OS.get_ticks_msec()
	var sent := false
	for w in _shot_waiters.duplicate():
		if w.ticket <= taken and not png.empty():
			_send_bytes(w.peer, 200, png, "image/png")
		elif now - w.since > SHOT_TIMEOUT_MS:
			_send(w.peer, 503, to_json({"error": "no frame was drawn to take a screenshot of; try again"}))
		else:
			continue
		w.peer.disconnect_from_host()
		_shot_waiters.erase(w)
		sent = true
	return sent


# One pass over the server and its connections; true when it did something.
func _serve() -> bool:
	var busy := false
	while _server.is_connection_available():
		var peer: StreamPeerTCP = _server.take_connection()
		if _peers.size() >= MAX_PEERS:
			# Every slot holds a connection still waiting for its request (answered ones are gone):
			# the oldest goes, so another local user's idle connections cannot lock the bridge out.
			var oldest = _peers[0]
			for q in _peers:
				if q.since < oldest.since:
					oldest = q
			_drop(oldest)
		peer.set_no_delay(true)
		_peers.append({"peer": peer, "text": "", "since": OS.get_ticks_msec()})
		busy = true
	var now := OS.get_ticks_msec()
	for p in _peers.duplicate():
		var peer: StreamPeerTCP = p.peer
		var n := peer.get_available_bytes()
		if n > 0:
			p.text += peer.get_data(n)[1].get_string_from_utf8()
			busy = true
		if p.text.length() > MAX_REQUEST_BYTES:
			_send(peer, 431, to_json({"error": "request over %d bytes" % MAX_REQUEST_BYTES}))
			_drop(p)
		elif p.text.find("\r\n\r\n") >= 0:
			var refused := _refusal(p.text)
			if refused != "":
				var status: int = 400 if refused.begins_with("Bad Request") else 403
				_send(peer, status, to_json({"ok": false, "accepted": false, "error": refused}))
			elif _answer(peer, p.text.split("\r\n")[0].split(" ")):
				_peers.erase(p)  # it waits for a frame among _shot_waiters
				continue
			_drop(p)
		elif peer.get_status() != StreamPeerTCP.STATUS_CONNECTED or now - p.since > REQUEST_TIMEOUT_MS:
			_drop(p)  # gone, or never finished its request
	return busy


# Why a request is refused as a browser's (docs/CONTRACT.md, "Refuse browsers"), or "". Any
# web page can make the user's browser call a loopback port, and a DNS-rebinding page does so
# under its own Host name; the bridge and curl send neither Origin nor Sec-Fetch-Site.
func _refusal(head: String) -> String:
	var host := ""
	var hosts := 0
	var browser := false
	for line in head.split("\r\n\r\n")[0].split("\r\n"):
		var colon: int = line.find(":")
		if colon <= 0:
			continue
		var key: String = line.left(colon).strip_edges().to_lower()
		var value: String = line.substr(colon + 1).strip_edges()
		if key == "host":
			host = value
			hosts += 1
		elif key == "origin" or (key == "sec-fetch-site" and value != "none"):
			browser = true
	# Two Host headers: a proxy in front and this kit could each read a different one.
	if hosts > 1:
		return "Bad Request: more than one Host header"
	if host != "127.0.0.1:%d" % port and host != "localhost:%d" % port:
		return "Forbidden: unexpected Host header '%s' (this port answers 127.0.0.1:%d only)" % [host.left(100), port]
	if browser:
		return "Forbidden: browser requests are refused on a game port"
	return ""


# True when the answer waits for a frame (/screenshot on a build that draws).
func _answer(peer: StreamPeerTCP, request_line: PoolStringArray) -> bool:
	if request_line.size() < 2 or request_line[0] != "GET":
		_send(peer, 405, to_json({"error": "the game surface answers GET only"}))
		return false
	var target: String = request_line[1]
	var path: String = target.split("?")[0]
	var query := _parse_query(target.right(path.length() + 1) if target.find("?") >= 0 else "")
	_mutex.lock()
	var pub := _pub
	_mutex.unlock()
	match path:
		"/command":
			var cmd: String = query.get("cmd", "")
			query.erase("cmd")
			if cmd == "":
				_send(peer, 400, to_json({"accepted": false, "error": "missing 'cmd' (GET /command?cmd=NAME&arg=value)", "known": pub.get("known", [])}))
			else:
				_send(peer, 200, to_json(enqueue(cmd, query, pub)))
		"/health", "/state", "/ui", "/world":
			if pub.has(path):
				_send(peer, 200, pub[path])
			else:
				_send(peer, 404, to_json({"error": "this game publishes no %s" % path.substr(1)}))
		"/errors":  # the errors seen after `since`, oldest first, and the latest number
			var since := int(query.get("since", "0"))
			var listed := []
			for e in pub.get("errors", []):
				if e["seq"] > since:
					listed.append(e)
			_send(peer, 200, to_json({"seq": pub.get("error_seq", 0), "errors": listed}))
		"/frames":
			var after: String = query.get("since", "-1")
			if after.is_valid_float():
				_send(peer, 200, to_json(frames_since(float(after))))
			else:
				_send(peer, 400, to_json({"error": "'since' must be a frame number, got '%s'" % after.left(40)}))
		"/tools":
			_send(peer, 200 if pub.has("/tools") else 404, pub.get("/tools", to_json({"error": "this game publishes no manifest"})))
		"/screenshot":
			if not draws:
				_send(peer, 404, to_json({"error": "this game gives no frames: the headless server build draws nothing (run it on the engine with a renderer, under a display)"}))
				return false
			_mutex.lock()
			_shot_asked += 1
			_shot_waiters.append({"peer": peer, "since": OS.get_ticks_msec(), "ticket": _shot_asked})
			_mutex.unlock()
			return true
		_:
			var endpoints := ["/health", "/state", "/command", "/tools", "/errors", "/frames", "/ui", "/world"]
			if draws:
				endpoints.append("/screenshot")
			_send(peer, 404, to_json({"error": "no such endpoint '%s'" % path, "endpoints": endpoints}))
	return false


# The /command answer (server thread): validate now, apply on the next physics frame.
func enqueue(cmd: String, args: Dictionary, pub: Dictionary) -> Dictionary:
	var known_names: Array = pub.get("known", [])
	if not known_names.has(cmd):
		return {"accepted": false, "error": "unknown command '%s'" % cmd, "known": known_names}
	var why := _validate(cmd, args, pub)
	if why != "":
		return {"accepted": false, "error": why}  # the bridge names the command itself
	_mutex.lock()
	var id := _next_id
	_next_id += 1
	_incoming.append([id, cmd, args])
	_mutex.unlock()
	return {"accepted": true, "commandId": id, "frame": pub.get("frame", 0)}


# Why the command is refused ("" accepts it); the reserved ones are checked here.
func _validate(cmd: String, args: Dictionary, pub: Dictionary) -> String:
	var inputs: Array = pub.get("inputs", [])
	var commands: Dictionary = pub.get("commands", {})
	if cmd.begins_with("input.") and not args.has("owner"):
		return "missing argument 'owner'"
	if cmd.begins_with("input.") and args.get("owner", "").strip_edges() == "":
		return "argument 'owner' must not be empty (whoever holds the input)"
	if cmd == "input.hold":
		var lease: String = args.get("leaseMs", "")
		if not lease.is_valid_float() or float(lease) <= 0 or float(lease) > MAX_LEASE_MS:
			return "argument 'leaseMs' must be > 0 and <= %d, got '%s'" % [MAX_LEASE_MS, lease]
	var axis_names := []
	for a in pub.get("axes", []):
		axis_names.append(a.name)
	if cmd == "input.hold" and not inputs.has(args.get("input", "")):
		return "unknown input '%s' (this game reads: %s)" % [args.get("input", ""), PoolStringArray(inputs).join(", ")]
	if cmd == "input.release" and not inputs.has(args.get("input", "")) and not axis_names.has(args.get("input", "")):
		return "unknown input '%s' (this game reads: %s)" % [args.get("input", ""), PoolStringArray(inputs + axis_names).join(", ")]
	if NEEDS.has(cmd):
		return _validate_input(cmd, args, pub.get("axes", []), axis_names)
	if cmd == STALL:
		var why := _within(args, "ms", 1, MAX_STALL_MS)
		if why != "" or not args.has("frame"):
			return why
		return _within(args, "frame", 0, 1e15, true)
	if cmd == "clock.step":
		var frames: String = args.get("frames", "")
		if not frames.is_valid_integer() or int(frames) < 1 or int(frames) > MAX_STEP_FRAMES:
			return "argument 'frames' must be a whole number from 1 to %d, got '%s'" % [MAX_STEP_FRAMES, frames]
	if cmd.begins_with("ui.") and args.get("id", "") == "":
		return "missing argument 'id'"
	if cmd == "ui.setValue" and not args.has("value"):
		return "missing argument 'value'"
	if commands.has(cmd) and commands[cmd][2] != "":
		var c = commands[cmd]
		return str(c[0].call(c[2], args))
	return ""


# A range bound as people write it: 1, not 1.0.
func _bound(v: float) -> String:
	return str(int(v)) if v == floor(v) else str(v)


# "" or why the value `name` is outside lo..hi (whole: a whole number).
func _within(args: Dictionary, name: String, lo: float, hi: float, whole := false) -> String:
	var text: String = args.get(name, "")
	var ok := text.is_valid_integer() if whole else text.is_valid_float()
	if not ok or float(text) < lo or float(text) > hi:
		return "argument '%s' must be %s from %s to %s, got '%s'" % [name, "a whole number" if whole else "a number", _bound(lo), _bound(hi), text.left(40)]
	return ""


# Why a pointer, wheel, touch, axis or text command is refused: every value in its range.
func _validate_input(cmd: String, args: Dictionary, axes: Array, axis_names: Array) -> String:
	if cmd == "input.axis":
		var name: String = args.get("input", "")
		if not axis_names.has(name):
			return "unknown axis '%s' (this game reads: %s)" % [name, PoolStringArray(axis_names).join(", ")]
		var lease: String = args.get("leaseMs", "")
		if not lease.is_valid_float() or float(lease) <= 0 or float(lease) > MAX_LEASE_MS:
			return "argument 'leaseMs' must be > 0 and <= %d, got '%s'" % [MAX_LEASE_MS, lease]
		var a: Dictionary = axes[axis_names.find(name)]
		var value: String = args.get("value", "")
		if not value.is_valid_float() or float(value) < a.min or float(value) > a.max:
			return "argument 'value' must be within %s..%s for axis '%s', got '%s'" % [_bound(a.min), _bound(a.max), name, value.left(40)]
		return ""
	if cmd == "input.text":
		var n: int = args.get("text", "").length()
		if n < 1 or n > MAX_TEXT:
			return "argument 'text' must be 1 to %d characters, got %d" % [MAX_TEXT, n]
		return ""
	if cmd == "input.wheel":
		var why := _within(args, "dx", -MAX_WHEEL, MAX_WHEEL)
		return why if why != "" else _within(args, "dy", -MAX_WHEEL, MAX_WHEEL)
	var why := _within(args, "x", 0, MAX_COORD)
	if why == "":
		why = _within(args, "y", 0, MAX_COORD)
	if why == "" and cmd == "input.click":
		var button: String = args.get("button", "")
		if not button in ["1", "2", "4"]:
			return "argument 'button' must be 1 (left), 2 (right) or 4 (middle), got '%s'" % button.left(40)
		return _within(args, "count", 1, MAX_CLICKS, true)
	if why != "" or cmd == "input.pointer":
		return why if why != "" else _within(args, "buttons", 0, 7, true)
	var phase: String = args.get("phase", "")
	if not phase in ["down", "move", "up"]:
		return "argument 'phase' must be down, move or up, got '%s'" % phase.left(40)
	return _within(args, "id", 0, MAX_TOUCH_ID, true)


func _parse_query(text: String) -> Dictionary:
	var out := {}
	for pair in text.split("&", false):
		var k: String = pair.split("=")[0]
		var v: String = pair.right(k.length() + 1)
		out[k.replace("+", " ").percent_decode()] = v.replace("+", " ").percent_decode()
	return out


# Head and body in one write.
func _send(peer: StreamPeerTCP, status: int, json: String) -> void:
	var reason := {200: "OK", 400: "Bad Request", 404: "Not Found", 403: "Forbidden", 405: "Method Not Allowed", 431: "Request Header Fields Too Large", 503: "Service Unavailable"}
	var data := json.to_utf8()
	var head := "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % [status, reason.get(status, "OK"), data.size()]
	peer.put_data(head.to_ascii() + data)


func _send_bytes(peer: StreamPeerTCP, status: int, data: PoolByteArray, type: String) -> void:
	var head := "HTTP/1.1 %d OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % [status, type, data.size()]
	peer.put_data(head.to_ascii() + data)


func _drop(p: Dictionary) -> void:
	p.peer.disconnect_from_host()
	_peers.erase(p)


# --- command line, registry, exit ------------------------------------------------------------
func _port_argument() -> String:
	var args := OS.get_cmdline_args()
	for i in args.size():
		if args[i].begins_with("--debug-port="):
			return args[i].right("--debug-port=".length())
		if args[i] == "--debug-port":
			return args[i + 1] if i + 1 < args.size() else "(nothing)"
	return ""


func _fail(why: String) -> void:
	printerr("GameBridge: " + why)
	set_physics_process(false)
	get_tree().quit(2)


func _registry_dir() -> String:
	if OS.get_environment("GAME_BRIDGE_INSTANCES") != "":
		return OS.get_environment("GAME_BRIDGE_INSTANCES")
	var home := OS.get_environment("GAME_BRIDGE_HOME")
	return (home if home != "" else OS.get_environment("HOME").plus_file(".game-bridge")).plus_file("instances")


# Atomic (temp file + rename); a registry failure never breaks the game.
func _write_registry_entry() -> void:
	var dir := Directory.new()
	var path := _registry_dir().plus_file("%d.json" % OS.get_process_id())
	var tmp := path + ".tmp"
	var t := OS.get_datetime(true)
	var entry := {"name": _info.name, "version": _info.version, "protocol": _info.protocol, "port": port,
		"pid": OS.get_process_id(), "host": "127.0.0.1", "cwd": ProjectSettings.globalize_path("res://").trim_suffix("/"),
		"started": "%04d-%02d-%02dT%02d:%02d:%02dZ" % [t.year, t.month, t.day, t.hour, t.minute, t.second]}
	var file := File.new()
	var created := not dir.dir_exists(_registry_dir())
	if dir.make_dir_recursive(_registry_dir()) != OK or file.open(tmp, File.WRITE) != OK:
		printerr("GameBridge: could not write the registry entry %s; discovery falls back to port scans" % path)
		return
	file.close()
	# Private, made so while still empty: the entry says which port takes commands. Godot 3 has
	# no chmod of its own, so the system's (once, at start; nothing to do on Windows).
	if OS.get_name() != "Windows":
		if created:
			OS.execute("chmod", ["700", _registry_dir()], true)
		OS.execute("chmod", ["600", tmp], true)
	if file.open(tmp, File.WRITE) != OK:
		printerr("GameBridge: could not write the registry entry %s; discovery falls back to port scans" % path)
		return
	file.store_string(to_json(entry))
	file.close()
	if dir.rename(tmp, path) == OK:
		registry_file = path


func _exit_tree() -> void:
	if registry_file != "":
		Directory.new().remove(registry_file)
		registry_file = ""
	if _thread != null:
		_mutex.lock()
		_stop = true
		_mutex.unlock()
		_thread.wait_to_finish()
		_thread = null
	for p in _peers + _shot_waiters:
		p.peer.disconnect_from_host()
	_server.stop()
