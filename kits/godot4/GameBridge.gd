# GameBridge for Godot 4: a port of kits/godot3/GameBridge.gd (same contract, same API).
# NOT RUN HERE: the project's tests run the Godot 3 file on godot3-server; this port is kept in
# step with it by hand. See docs/KITS.md. Add it as an autoload named GameBridge and start the
# game with `godot --headless --path . -- --debug-port=7820`.
#
# What differs from the Godot 3 file, and why this is a separate file:
#   TCP_Server -> TCPServer, and a StreamPeerTCP must be poll()ed before its status is read
#   to_json() / parse_json() -> JSON.stringify() / JSON.parse_string()
#   OS.get_cmdline_args() -> OS.get_cmdline_user_args() (only what follows `--`)
#   pause_mode = PAUSE_MODE_PROCESS -> process_mode = PROCESS_MODE_ALWAYS
#   OS.get_ticks_msec() / OS.get_datetime() -> Time.get_ticks_msec() / Time.get_datetime_string_from_system()
#   File / Directory -> FileAccess / DirAccess (static *_absolute functions)
#   String: percent_decode -> uri_decode, is_valid_integer -> is_valid_int, plus_file -> path_join,
#   right(position) -> substr(position) (right() now counts characters from the end),
#   to_utf8 / to_ascii -> to_utf8_buffer / to_ascii_buffer; PoolStringArray -> PackedStringArray
#   Array/Dictionary .empty() -> .is_empty(); emit_signal("x", r) -> x.emit(r)
#   Commands and the snapshot are Callables (add_command("jump", _on_jump)) instead of object + method name.
#
#   GameBridge.configure({"name": "Walker", "version": "1.0.0", "inputs": ["left", "right"], "manifest": {...}})
#   GameBridge.set_snapshot(snapshot)                     # func snapshot() -> Dictionary
#   GameBridge.add_command("jump", _on_jump)              # func _on_jump(args: Dictionary) -> void
#   if GameBridge.is_held("right"): ...                   # in _physics_process
extends Node

signal close_requested(reason: String)  # connect to override the default exit (get_tree().quit())

const RESERVED := ["input.hold", "input.release", "input.releaseAll", "clock.pause", "clock.resume", "clock.step"]
const MAX_LEASE_MS := 3600000   # a hold is meant to end; the bridge re-holds
const MAX_STEP_FRAMES := 10000  # later commands wait behind a step, so keep it bounded
const MAX_REQUEST_BYTES := 65536
const REQUEST_TIMEOUT_MS := 10000

var port := 0
var frame := 0
var sim_frame := 0
var session_epoch := 1
var capabilities := ["clock"]  # "input" too once configure() names the inputs
var registry_file := ""

var _info := {"name": "", "version": "0.0.0", "protocol": 1}
var _manifest = null        # Dictionary served at /tools, or null (404)
var _inputs = null          # Array of the input names the game reads, or null (no "input" capability)
var _clock := true
var _snapshot := Callable()
var _commands := {}         # name -> [apply Callable, validate Callable (or an empty one)]
var _server := TCPServer.new()
var _peers := []            # [{peer, text, since}]
var _queue := []            # [id, cmd, args]
var _next_id := 1
var _completed := 0
var _held := {}             # "input\nowner" -> {input, owner, until (msec)}
var _paused := false
var _step_left := 0
var _step_id := 0
var _simulated_last := false
var _closing := false


# Binds the debug port when one is given; a bad or busy port ends the game with code 2.
func _ready() -> void:
	process_mode = Node.PROCESS_MODE_ALWAYS
	_info["name"] = ProjectSettings.get_setting("application/config/name")
	var arg := _port_argument()
	if arg == "":
		set_physics_process(false)  # no flag, no HTTP surface
		return
	if not arg.is_valid_int() or int(arg) < 1 or int(arg) > 65535:
		_fail("--debug-port must be a port number (1-65535), got '%s'" % arg)
		return
	port = int(arg)
	var err := _server.listen(port, "127.0.0.1")
	if err != OK:
		_fail("cannot listen on 127.0.0.1:%d (error %d: the port is probably in use)" % [port, err])
		return
	print("GameBridge: listening on 127.0.0.1:%d" % port)
	call_deferred("_write_registry_entry")  # after the main scene's configure()


# --- the game's side ------------------------------------------------------------------------
# name, version, protocol; inputs (Array: the names the game reads, declares "input");
# clock (bool, default true: the agent may pause and step); manifest (Dictionary for /tools).
func configure(options: Dictionary) -> void:
	for key in ["name", "version", "protocol"]:
		if options.has(key):
			_info[key] = options[key]
	_inputs = options.get("inputs", _inputs)
	_clock = options.get("clock", _clock)
	_manifest = options.get("manifest", _manifest)
	capabilities = []
	if _inputs != null:
		capabilities.append("input")
	if _clock:
		capabilities.append("clock")


func set_snapshot(snapshot: Callable) -> void:
	_snapshot = snapshot


# validate (optional): func(args) -> String, "" to accept; it runs when the request arrives.
func add_command(name: String, apply: Callable, validate := Callable()) -> void:
	if name == "close" or name.begins_with("input.") or name.begins_with("clock."):
		push_error("GameBridge: command name '%s' is reserved (close, input.* and clock.* are the kit's)" % name)
		return
	_commands[name] = [apply, validate]


func is_held(input_name: String) -> bool:
	for h in _held.values():
		if h["input"] == input_name:
			return true
	return false


# A new run or level in the same process: waits that span it fail instead of lying.
func new_epoch() -> void:
	session_epoch += 1


func is_paused() -> bool:
	return _paused


# --- the frame -------------------------------------------------------------------------------
func _physics_process(_delta: float) -> void:
	frame += 1
	if _simulated_last:  # the previous physics frame ran the game: count it
		sim_frame += 1
		if _step_left > 0:
			_step_left -= 1
			if _step_left == 0:  # complete only once its frames have run
				_completed = _step_id
	_expire_leases()
	_apply_queue()
	_serve()
	var simulate := not _paused or _step_left > 0
	if simulate != _simulated_last:  # only on a change, so a game's own pausing is not undone every frame
		get_tree().paused = not simulate
	_simulated_last = simulate


# In order; a clock.step holds back what follows until its frames have run.
func _apply_queue() -> void:
	while not _queue.is_empty() and _step_left == 0:
		var c = _queue.pop_front()
		_apply(c[0], c[1], c[2])
		if _step_left == 0:
			_completed = c[0]


func _apply(id: int, cmd: String, args: Dictionary) -> void:
	var who: String = args.get("owner", "")
	match cmd:
		"input.hold":
			var until := Time.get_ticks_msec() + int(ceil(float(args["leaseMs"])))
			_held[args["input"] + "\n" + who] = {"input": args["input"], "owner": who, "until": until}
		"input.release":
			_held.erase(args["input"] + "\n" + who)
		"input.releaseAll":
			for key in _held.keys():
				if _held[key]["owner"] == who:
					_held.erase(key)
		"clock.pause":
			_paused = true
		"clock.resume":
			_paused = false
		"clock.step":
			_paused = true
			_step_left = int(args["frames"])
			_step_id = id
		"close":
			_request_close("command")
		_:
			_commands[cmd][0].call(args)


func _expire_leases() -> void:
	var now := Time.get_ticks_msec()
	for key in _held.keys():
		if _held[key]["until"] <= now:
			_held.erase(key)


func _request_close(reason: String) -> void:
	if _closing:
		return
	_closing = true
	if close_requested.get_connections().is_empty():
		get_tree().quit()
	else:
		close_requested.emit(reason)


# --- what the wire reads ---------------------------------------------------------------------
func health() -> Dictionary:
	return {"ok": true, "frame": frame, "capabilities": capabilities, "sessionEpoch": session_epoch}


func state() -> Dictionary:
	var s := {}
	if _snapshot.is_valid():
		s = _snapshot.call().duplicate()
	var now := Time.get_ticks_msec()
	if _inputs != null:
		var held := []
		for h in _held.values():
			held.append({"input": h["input"], "owner": h["owner"], "leaseMsLeft": max(0, h["until"] - now)})
		s["input"] = {"held": held}
	s["frame"] = frame
	s["simFrame"] = sim_frame
	s["completedCommandId"] = _completed
	s["sessionEpoch"] = session_epoch
	s["clock"] = {"paused": _paused, "stepFramesLeft": _step_left}
	return s


func tools():
	if _manifest == null:
		return null
	var m: Dictionary = _manifest.duplicate(true)
	var game: Dictionary = m.get("game", {"name": _info["name"], "version": _info["version"], "protocol": _info["protocol"]})
	game["capabilities"] = capabilities
	if _inputs != null:
		game["inputs"] = _inputs
	m["game"] = game
	return m


func known() -> Array:
	var names: Array = _commands.keys()
	names.sort()
	names.append("close")
	for r in RESERVED:
		if capabilities.has(r.split(".")[0]):
			names.append(r)
	return names


# The /command answer: validate now, apply on the next physics frame.
func enqueue(cmd: String, args: Dictionary) -> Dictionary:
	if not known().has(cmd):
		return {"accepted": false, "error": "unknown command '%s'" % cmd, "known": known()}
	var why := _validate(cmd, args)
	if why != "":
		return {"accepted": false, "error": why}  # the bridge names the command itself
	var id := _next_id
	_next_id += 1
	_queue.append([id, cmd, args])
	return {"accepted": true, "commandId": id, "frame": frame}


# Why the command is refused ("" accepts it); the reserved ones are checked here.
func _validate(cmd: String, args: Dictionary) -> String:
	if cmd.begins_with("input.") and not args.has("owner"):
		return "missing argument 'owner'"
	if cmd.begins_with("input.") and str(args.get("owner", "")).strip_edges() == "":
		return "argument 'owner' must not be empty (whoever holds the input)"
	if cmd == "input.hold":
		var lease: String = args.get("leaseMs", "")
		if not lease.is_valid_float() or float(lease) <= 0 or float(lease) > MAX_LEASE_MS:
			return "argument 'leaseMs' must be > 0 and <= %d, got '%s'" % [MAX_LEASE_MS, lease]
	if cmd == "input.hold" or cmd == "input.release":
		if not _inputs.has(args.get("input", "")):
			return "unknown input '%s' (this game reads: %s)" % [args.get("input", ""), ", ".join(PackedStringArray(_inputs))]
	if cmd == "clock.step":
		var frames: String = args.get("frames", "")
		if not frames.is_valid_int() or int(frames) < 1 or int(frames) > MAX_STEP_FRAMES:
			return "argument 'frames' must be a whole number from 1 to %d, got '%s'" % [MAX_STEP_FRAMES, frames]
	if _commands.has(cmd) and _commands[cmd][1].is_valid():
		return str(_commands[cmd][1].call(args))
	return ""


# --- HTTP over TCPServer: GET only, Connection: close -------------------------------------
func _serve() -> void:
	while _server.is_connection_available():
		_peers.append({"peer": _server.take_connection(), "text": "", "since": Time.get_ticks_msec()})
	var now := Time.get_ticks_msec()
	for p in _peers.duplicate():
		var peer: StreamPeerTCP = p["peer"]
		peer.poll()
		var n := peer.get_available_bytes()
		if n > 0:
			p["text"] += peer.get_data(n)[1].get_string_from_utf8()
		if p["text"].find("\r\n\r\n") >= 0:
			_answer(peer, p["text"].split("\r\n")[0].split(" "))
			_drop(p)
		elif p["text"].length() > MAX_REQUEST_BYTES:
			_send(peer, 431, {"error": "request over %d bytes" % MAX_REQUEST_BYTES})
			_drop(p)
		elif peer.get_status() != StreamPeerTCP.STATUS_CONNECTED or now - p["since"] > REQUEST_TIMEOUT_MS:
			_drop(p)  # gone, or never finished its request


func _answer(peer: StreamPeerTCP, request_line: PackedStringArray) -> void:
	if request_line.size() < 2 or request_line[0] != "GET":
		_send(peer, 405, {"error": "the game surface answers GET only"})
		return
	var target: String = request_line[1]
	var path: String = target.split("?")[0]
	var query := _parse_query(target.substr(path.length() + 1) if target.find("?") >= 0 else "")
	match path:
		"/health":
			_send(peer, 200, health())
		"/state":
			_send(peer, 200, state())
		"/command":
			var cmd: String = query.get("cmd", "")
			query.erase("cmd")
			if cmd == "":
				_send(peer, 400, {"accepted": false, "error": "missing 'cmd' (GET /command?cmd=NAME&arg=value)", "known": known()})
			else:
				_send(peer, 200, enqueue(cmd, query))
		"/tools":
			var m = tools()
			_send(peer, 200 if m != null else 404, m if m != null else {"error": "this game publishes no manifest"})
		_:  # no /screenshot: a headless server renders nothing
			_send(peer, 404, {"error": "no such endpoint '%s'" % path, "endpoints": ["/health", "/state", "/command", "/tools"]})


func _parse_query(text: String) -> Dictionary:
	var out := {}
	for pair in text.split("&", false):
		var k: String = pair.split("=")[0]
		var v: String = pair.substr(k.length() + 1)
		out[k.replace("+", " ").uri_decode()] = v.replace("+", " ").uri_decode()
	return out


func _send(peer: StreamPeerTCP, status: int, body) -> void:
	var reason := {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 431: "Request Header Fields Too Large"}
	var data := JSON.stringify(body).to_utf8_buffer()
	var head := "HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % [status, reason.get(status, "OK"), data.size()]
	peer.put_data(head.to_ascii_buffer() + data)


func _drop(p: Dictionary) -> void:
	p["peer"].disconnect_from_host()
	_peers.erase(p)


# --- command line, registry, exit ------------------------------------------------------------
func _port_argument() -> String:
	var args := OS.get_cmdline_user_args()
	for i in args.size():
		if args[i].begins_with("--debug-port="):
			return args[i].substr("--debug-port=".length())
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
	return (home if home != "" else OS.get_environment("HOME").path_join(".game-bridge")).path_join("instances")


# Atomic (temp file + rename); a registry failure never breaks the game.
func _write_registry_entry() -> void:
	var path := _registry_dir().path_join("%d.json" % OS.get_process_id())
	var tmp := path + ".tmp"
	var entry := {"name": _info["name"], "version": _info["version"], "protocol": _info["protocol"], "port": port,
		"pid": OS.get_process_id(), "host": "127.0.0.1", "cwd": ProjectSettings.globalize_path("res://").trim_suffix("/"),
		"started": Time.get_datetime_string_from_system(true) + "Z"}
	var file: FileAccess = null
	if DirAccess.make_dir_recursive_absolute(_registry_dir()) == OK:
		file = FileAccess.open(tmp, FileAccess.WRITE)
	if file == null:
		printerr("GameBridge: could not write the registry entry %s; discovery falls back to port scans" % path)
		return
	file.store_string(JSON.stringify(entry))
	file.close()
	if DirAccess.rename_absolute(tmp, path) == OK:
		registry_file = path


func _exit_tree() -> void:
	if registry_file != "":
		DirAccess.remove_absolute(registry_file)
		registry_file = ""
	for p in _peers:
		p["peer"].disconnect_from_host()
	_server.stop()
