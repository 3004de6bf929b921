# Walker (Godot): a KinematicBody2D that walks while `left`/`right` is held and jumps on
# `jump`, collecting coins along a floor. `reset` starts a new run (a new session epoch).
# Everything the game simulates happens in _physics_process, so the bridge's clock
# (pause / step N frames) governs it exactly. The HUD (coins, Jump, Menu) and the pause menu
# (Start, a disabled Options, a Volume slider) are ordinary Controls in the scene: the kit
# publishes them as the UI tree with no code here. The walker and the coins still on the track
# are in the gamebridge_world group, so they are world objects.
#
# The agent's pointer, touches, `walk` axis and typed text reach it as the engine's own input
# events (the kit parses them into Input): a joypad's axis 0 walks the walker at that fraction
# of its speed, clicks and taps on the field are read in _unhandled_input, and the focused Name
# field takes the typed text as a player's keys would fill it.
extends Node2D

const SPEED := 120.0          # px per second: 2 px per physics frame at 60 fps
const GRAVITY := 900.0
const JUMP_SPEED := 300.0
const COINS := [40, 90, 160, 240, 320]
const TRACK_END := 400.0
const VIEW := Vector2(80, 320)  # where the world's origin is drawn on screen, below the HUD

onready var player: KinematicBody2D = $Player
onready var menu: Control = $Menu
onready var hud: Control = $HUD
var velocity := Vector2.ZERO
var run := 1
var jumps := 0
var coins := []
var events := []
var walk := 0.0
var last_click = null
var last_tap = null


func _ready() -> void:
	GameBridge.configure({"name": "Walker (Godot)", "version": "1.0.0", "inputs": ["left", "right"], "manifest": _manifest(),
		"axes": [{"name": "walk", "min": -1, "max": 1}], "pointer": true, "touch": true, "text": true})
	GameBridge.set_snapshot(self, "snapshot")
	GameBridge.add_command("jump", self, "_jump")
	GameBridge.add_command("reset", self, "_reset")
	GameBridge.add_command("teleport", self, "_teleport", "_teleport_invalid")
	$HUD/Jump.connect("pressed", self, "_jump", [{}])
	$HUD/OpenMenu.connect("pressed", self, "_open_menu", [true])
	$Menu/Start.connect("pressed", self, "_open_menu", [false])
	$NameField.grab_focus()


# The engine's input events, a player's or the agent's alike.
func _unhandled_input(event: InputEvent) -> void:
	if event is InputEventJoypadMotion and event.axis == JOY_AXIS_0:
		walk = event.axis_value
	elif event is InputEventMouseButton and event.pressed and event.button_index == BUTTON_LEFT:
		last_click = [event.position.x, event.position.y]
	elif event is InputEventScreenTouch and event.pressed:
		last_tap = [event.position.x, event.position.y]


func _physics_process(delta: float) -> void:
	$HUD/Jump.disabled = not _on_ground()
	if menu.visible:  # the pause menu stops the walk
		return
	var direction := 0
	if GameBridge.is_held("right"):
		direction += 1
	if GameBridge.is_held("left"):
		direction -= 1
	velocity.x = (direction + walk) * SPEED
	velocity.y += GRAVITY * delta
	velocity = player.move_and_slide(velocity, Vector2.UP)
	player.position.x = clamp(player.position.x, 0.0, TRACK_END)
	for c in COINS:
		if not coins.has(c) and abs(player.position.x - c) < 2.0:
			coins.append(c)
			get_node("Coin%d" % c).remove_from_group(GameBridge.WORLD_GROUP)
			_event("coin:%d" % c)
	$HUD/Coins.text = "Coins %d/%d" % [coins.size(), COINS.size()]
	update()


# The floor, the coins still on it and the walker, where the world's coordinates put them.
# Redrawn after each simulated frame and each command that moves something, so a screenshot
# shows the state as published, on a paused clock too.
func _draw() -> void:
	draw_rect(Rect2(VIEW + Vector2(-16, 10), Vector2(TRACK_END + 32, 20)), Color(0.35, 0.25, 0.2))
	draw_rect(Rect2(VIEW + Vector2(TRACK_END, -40), Vector2(4, 50)), Color(0.9, 0.9, 0.9))
	for c in COINS:
		if not coins.has(c):
			draw_circle(VIEW + Vector2(c, -8), 6, Color(1, 0.8, 0.1))
	draw_rect(Rect2(VIEW + player.position - Vector2(8, 8), Vector2(16, 16)), Color(0.2, 0.6, 1))


func _on_ground() -> bool:
	return player.is_on_floor() and velocity.y >= 0


func _screen() -> String:
	if menu.visible:
		return "MenuScreen"
	return "FinishScreen" if player.position.x >= TRACK_END else "GameScreen"


func snapshot() -> Dictionary:
	# Godot's own queries: Input.parse_input_event moves them too, so they follow the agent's pointer
	var mouse := get_viewport().get_mouse_position()
	return {"ui": {"screen": _screen()}, "events": events.duplicate(),
		"game": {"run": run, "x": player.position.x, "y": player.position.y, "onFloor": player.is_on_floor(),
			"jumps": jumps, "coins": coins.duplicate(), "volume": $Menu/Volume.value,
			"walk": walk, "name": $NameField.text, "lastClick": last_click, "lastTap": last_tap,
			"mouse": [mouse.x, mouse.y, Input.is_mouse_button_pressed(BUTTON_LEFT)], "joyAxis": Input.get_joy_axis(0, 0)}}


func _open_menu(open: bool) -> void:
	menu.visible = open
	hud.visible = not open


# Fails in the air: the kit reports the returned reason as the command's result.
func _jump(_args: Dictionary):
	if not _on_ground():
		return "the walker is in the air (jump again once it lands)"
	velocity.y = -JUMP_SPEED
	jumps += 1
	_event("jump:%d" % jumps)
	return ""


func _reset(_args: Dictionary) -> void:
	player.position = Vector2(0, -8)
	velocity = Vector2.ZERO
	run += 1
	jumps = 0
	for c in coins:
		get_node("Coin%d" % c).add_to_group(GameBridge.WORLD_GROUP)
	coins = []
	events = []
	_open_menu(false)
	GameBridge.new_epoch()
	update()


func _teleport(args: Dictionary) -> void:
	player.position.x = float(args.x)
	update()


func _teleport_invalid(args: Dictionary) -> String:
	if not args.has("x") or not args.x.is_valid_float():
		return "x must be a number"
	if float(args.x) < 0 or float(args.x) > TRACK_END:
		return "x must be within 0-%d" % TRACK_END
	return ""


func _event(m: String) -> void:
	events.append({"m": m})
	if events.size() > 20:
		events.pop_front()


func _manifest() -> Dictionary:
	return {"toolsets": [{"name": "play", "description": "Walk the floor (hold left/right with the bridge's hold tool)", "tools": [
		{"name": "jump", "description": "Jump, if on the floor", "args": []},
		{"name": "reset", "description": "Start a new run from x=0 (a new session epoch)", "args": []},
		{"name": "teleport", "description": "Put the walker at x", "args": [
			{"name": "x", "type": "number", "description": "Floor position, 0-400", "required": true}]},
	]}]}
