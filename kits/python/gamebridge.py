"""gamebridge: the game side of the game-bridge contract for Python games (stdlib only).

Copy this one file next to your game. See docs/KITS.md for the contract it implements.

    surface = gamebridge.GameSurface(port, "Walker", "1.0.0", snapshot=lambda: {...},
                                     commands={"jump": jump}, inputs=["left", "right"])
    surface.listen()                       # binds 127.0.0.1:port, then registers
    while surface.running:                 # SIGINT, SIGTERM and `close` end the loop
        surface.tick(simulate)             # once a frame; simulate() runs unless paused
        time.sleep(1 / 60)
    surface.close()                        # stops serving, removes the registry entry

HTTP threads never touch game state: /command validates and queues; tick() (the game loop)
applies the queue in order and records each command's result (/state's commandResults).
`input.*` and `clock.*` are built in, and the kit enforces input leases itself, so a held input
is released even if the bridge is gone.

Pointer, touch, analog axes and text (optional): pass axes=[{"name": "walk", "min": -1, "max": 1}],
pointer=True, touch=True, text=True. The game reads surface.axis("walk"), surface.pointer,
surface.touches and surface.take_text(), or gets each change as an event on the tick through
on_input=fn(event); on_input=gamebridge.pygame_events() posts them as real pygame events
(MOUSEMOTION, MOUSEBUTTONDOWN/UP, MOUSEWHEEL, FINGERDOWN/MOTION/UP, JOYAXISMOTION, TEXTINPUT)
and makes pygame's own queries follow the agent too: pygame.mouse.get_pos() and get_pressed(),
a bridge joystick in pygame.joystick (with axes), the agent's fingers in pygame._sdl2.touch
(with touch).

The UI and world trees (optional): pass ui=lambda: {"screen": "MenuScreen", "nodes": [...]}
and world=lambda: [{"id": "walker", "type": "player", "pos": [x, y]}]. A node is a dict with
id, role, name and the optional fields of docs/CONTRACT.md, plus callables the kit calls on
the tick: "activate": fn(), "setValue": fn(value), "focus": fn() (left out of GET /ui).
"""
import argparse
import atexit
import collections
import importlib
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

CLOSE = "close"
RESERVED = ["input.hold", "input.release", "input.releaseAll", "input.axis", "input.pointer", "input.click", "input.wheel",
            "input.touch", "input.text", "clock.pause", "clock.resume", "clock.step",
            "ui.activate", "ui.setValue", "ui.focus"]
# Which capability each reserved command needs (the rest: the part before the dot).
NEEDS = {"input.axis": "axis", "input.pointer": "pointer", "input.click": "pointer", "input.wheel": "pointer",
         "input.touch": "touch", "input.text": "text"}
INPUT_CAPS = ("input", "axis", "pointer", "touch", "text")
MAX_COORD = 65535  # screenshot pixels
MAX_WHEEL = 10000
MAX_TOUCH_ID = 9
MAX_CLICKS = 3  # a triple click is the most any game reads
MAX_TEXT = 1000
TOUCH_PHASES = ("down", "move", "up")
BUTTONS = ((1, "left"), (2, "right"), (4, "middle"))
MAX_LEASE_MS = 3600000  # a hold is meant to end; the bridge re-holds
MAX_STEP_FRAMES = 10000  # later commands wait behind a step, so keep it bounded
RESULTS_KEPT = 32  # recent command results in /state
FRAMES_KEPT = 3600  # frame times GET /frames serves: a minute at 60 frames a second
MAX_STALL_MS = 1000  # the longest frames.stall
STALL = "frames.stall"  # holds the game's thread on a frame: a slow frame to see in frame_stats
MAX_ERROR_CHARS = 500  # a failing handler's message goes to the agent: bounded
ERRORS_KEPT = 64  # errors the kit caught, served on /errors (the bridge counts repeats)
HANDLERS = ("activate", "setValue", "focus")
NUMERIC_ROLES = ("slider", "spinbutton", "scrollbar", "progressbar")
CHECKABLE_ROLES = ("checkbox", "switch", "radio", "menuitemcheckbox", "menuitemradio")
CHOICE_ROLES = ("combobox", "listbox", "radiogroup", "tablist")


class ArgError(ValueError):
    """A bad command argument; in a validator it becomes the refusal text."""


class Args:
    """Command arguments as sent (strings), with coercion helpers that raise ArgError."""

    def __init__(self, raw):
        self.raw = dict(raw)

    def string(self, name, default=None):
        if name in self.raw:
            return self.raw[name]
        if default is not None:
            return default
        raise ArgError("missing argument '%s'" % name)

    def number(self, name, default=None):
        text = self.raw.get(name, "").strip()
        if not text:
            if default is not None:
                return default
            raise ArgError("missing argument '%s' (a number)" % name)
        try:
            value = float(text)
        except ValueError:
            raise ArgError("argument '%s' must be a number, got '%s'" % (name, text[:40]))
        if value != value or value in (float("inf"), float("-inf")):
            raise ArgError("argument '%s' must be a finite number, got '%s'" % (name, text[:40]))
        return value

    def boolean(self, name, default=None):
        text = self.raw.get(name, "").strip().lower()
        if not text and default is not None:
            return default
        if text in ("true", "1", "yes", "on"):
            return True
        if text in ("false", "0", "no", "off"):
            return False
        raise ArgError("argument '%s' must be true or false, got '%s'" % (name, text[:40]))


class Command:
    """A game command: validate(args) runs on the HTTP thread (return a reason, or raise
    ArgError, to refuse); apply(args) runs on the game's tick."""

    def __init__(self, apply, validate=None):
        self.apply, self.validate = apply, validate


def debug_port(text):
    """argparse type for --debug-port: an integer 0-65535 (0 = any free port), or a clear error."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a port number (1-65535), got '%s'" % text)
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError("must be a port number (1-65535), got %d" % port)
    return port


# Set to 1 by the bridge to launch the game with its clock paused at simFrame 0 (docs/KITS.md).
START_PAUSED_ENV = "GAME_BRIDGE_START_PAUSED"


def registry_dir(env=None):
    """Where self-registration entries go: $GAME_BRIDGE_INSTANCES, else $GAME_BRIDGE_HOME/instances."""
    env = os.environ if env is None else env
    if env.get("GAME_BRIDGE_INSTANCES"):
        return os.path.abspath(env["GAME_BRIDGE_INSTANCES"])
    home = env.get("GAME_BRIDGE_HOME") or os.path.join(os.path.expanduser("~"), ".game-bridge")
    return os.path.join(home, "instances")


class GameSurface:
    """The contract's HTTP surface, registry entry, input leases and simulation clock for one game."""

    def __init__(self, port, name, version, snapshot, commands=None, manifest=None, inputs=None,
                 clock=True, screenshot=None, on_close=None, protocol=1, handle_signals=True,
                 register=True, log=None, ui=None, world=None, step_frames_per_tick=1,
                 axes=None, pointer=False, touch=False, text=False, on_input=None):
        """inputs: the input names the game reads (declares the "input" capability);
        clock: the agent may pause and step the game (the "clock" capability);
        step_frames_per_tick: how many frames of a clock.step one tick may simulate (default 1).
        A game whose simulation reads no wall clock can take many, so a saved test's frame-exact
        replay runs faster than real time;
        ui, world: the tree providers (the "ui" and "world" capabilities, GET /ui and /world);
        axes: [{"name", "min", "max"}] the analog axes the game reads (the "axis" capability);
        pointer, touch, text: the game takes the pointer, touch points, typed text;
        on_input: fn(event dict) called on the tick for each pointer, wheel, touch, axis and
        text change (see _emit for the shapes); pygame_events() posts them to pygame. An
        on_input with an attach(surface) method is handed this surface first."""
        if port is None or isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError("gamebridge: the debug port must be an integer 0-65535, got %r" % (port,))
        self.name, self.version, self.protocol = name, version, protocol
        self._axes = [_axis_decl(a) for a in (axes or [])]
        self.capabilities = ((["input"] if inputs is not None else []) + (["axis"] if self._axes else [])
                             + (["pointer"] if pointer else []) + (["touch"] if touch else [])
                             + (["text"] if text else []) + (["clock"] if clock else [])
                             + (["ui"] if ui else []) + (["world"] if world else []))
        self._ui = ui
        self._ui_tree = _Tree(lambda: _ui_content(ui())) if ui else None
        self._world_tree = _Tree(lambda: {"objects": [_plain_object(o) for o in world()]}) if world else None
        self._results = []
        self._errors, self._error_seq = [], 0
        self._snapshot, self._manifest, self._screenshot = snapshot, manifest, screenshot
        self._inputs = list(inputs) if inputs is not None else None
        self._on_close = on_close or (lambda reason: self.stop())
        self._handle_signals, self._register = handle_signals, register
        self._log = log or (lambda line: print("gamebridge: " + line, file=sys.stderr, flush=True))
        self._commands = {}
        for cmd_name, handler in (commands or {}).items():
            if cmd_name == CLOSE or cmd_name.startswith(("input.", "clock.", "ui.")):
                raise ValueError("gamebridge: command name '%s' is reserved (close, input.*, clock.* and ui.* are the kit's)" % cmd_name)
            self._commands[cmd_name] = handler if isinstance(handler, Command) else Command(handler)
        self._requested_port = port
        self._lock = threading.RLock()  # snapshot() and simulate() may call is_held()
        self._queue, self._next_id, self._completed = [], 1, 0
        self._held = {}  # (input, owner) -> monotonic deadline
        self._axis_holds = {}  # (axis, owner) -> (value, monotonic deadline); the latest hold wins
        self._axis_told = {a["name"]: 0.0 for a in self._axes}  # what on_input last heard
        self._pointer = {"x": 0.0, "y": 0.0, "buttons": 0}
        self._buttons_of = {}  # owner -> the buttons that owner holds; one mouse: down is every owner's together
        self._touches = {}  # id -> {"x", "y", "owner"}
        self._text = []
        self._on_input = on_input
        if hasattr(on_input, "attach"):  # pygame_events() follows what this game declares
            on_input.attach(self)
        # The bridge launched the game paused: its first simulated frame is one the bridge steps.
        self._paused = bool(clock) and os.environ.get(START_PAUSED_ENV) == "1"
        self._step_left, self._step_id = 0, None
        # A click in progress: [command id, owner, x, y, button, the presses and lifts to come].
        self._click = None
        batch = step_frames_per_tick
        self._batch = batch if isinstance(batch, int) and not isinstance(batch, bool) and batch >= 1 else 1
        self.frame, self.sim_frame, self.session_epoch = 0, 0, 1
        # (frame, simFrame, ms) of each recent frame, from its tick to the next one's
        self._frames = collections.deque(maxlen=FRAMES_KEPT)
        self._frame_start, self._stall = None, None  # the current frame's start; (frame, seconds) to hold
        self.running = True
        self.port, self.registry_file, self._server = None, None, None

    # ---- the game's side -------------------------------------------------------------
    def listen(self):
        """Bind 127.0.0.1 (a clear OSError when the port is taken: end the game then, as the
        examples do, since whatever holds the port would be taken for it), serve, then register."""
        handler = type("Handler", (_Handler,), {"surface": self})
        # Signals first: a game that goes on after a failed bind still ends cleanly.
        if self._handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, self._on_signal)
        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", self._requested_port), handler)
        except OSError as e:
            why = "the port is already in use" if e.errno == 98 else e.strerror or str(e)
            raise OSError(e.errno, "gamebridge: cannot listen on 127.0.0.1:%d: %s" % (self._requested_port, why))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        # a short poll interval: close() waits for one poll at most
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                         name="gamebridge-http", daemon=True).start()
        atexit.register(self._unregister)
        if self._register:
            self._write_registry_entry()
        return self

    def tick(self, simulate=None):
        """One game frame: expire leases, apply queued commands, then run one simulation
        frame (calling simulate()) unless the clock is paused; while a step runs, up to
        step_frames_per_tick of its frames. Returns the frames simulated (0 while paused).
        Pass simulate rather than simulating after tick() returns: tick holds the lock /state
        takes, so no request sees a step completed before its last frame ran."""
        with self._lock:
            self.frame += 1
            self._time_frame()
            self._expire_leases()
            self._click_tick()  # a click's next press or lift comes before any later command
            self._apply_queue()
            self._tell_axes()
            if self._paused and self._step_left == 0:
                return 0
            frames = min(self._batch, self._step_left) if self._step_left > 0 else 1
            for _ in range(frames):
                if simulate:
                    simulate()
            self.sim_frame += frames
            if self._step_left > 0:
                self._step_left -= frames
                if self._step_left == 0:  # the step is complete only once its frames have run
                    self._completed, self._step_id = self._step_id, None
            return frames

    def is_held(self, input_name):
        """Whether any owner holds this input right now (leases are checked on every read)."""
        with self._lock:
            self._expire_leases()
            return any(i == input_name for i, _ in self._held)

    def axis(self, name):
        """A declared axis's value now: the latest owner's hold, 0 at rest."""
        with self._lock:
            self._expire_leases()
            return self._axis_value(name)

    @property
    def pointer(self):
        """{"x", "y", "buttons"}: where the pointer is, in screenshot pixels, and its buttons (1 left, 2 right, 4 middle)."""
        with self._lock:
            return dict(self._pointer)

    @property
    def touches(self):
        """[{"id", "x", "y"}]: the touch points down now."""
        with self._lock:
            return [{"id": i, "x": t["x"], "y": t["y"]} for i, t in sorted(self._touches.items())]

    def take_text(self):
        """The text typed since the last call (the game's text queue), emptied."""
        with self._lock:
            text, self._text = "".join(self._text), []
            return text

    def new_epoch(self):
        """Call when a new run or level starts in the same process: waits spanning it fail."""
        with self._lock:
            self.session_epoch += 1

    def stop(self):
        """Ends the game loop (`running` becomes False): the default reaction to close and signals."""
        self.running = False

    def close(self):
        """Stop serving and remove the registry entry. Idempotent; does not exit the process."""
        server, self._server = self._server, None
        if server:
            server.shutdown()
            server.server_close()
        self._unregister()

    @property
    def paused(self):
        """The agent paused the clock (or a step is running)."""
        return self._paused

    # ---- what the HTTP side reads ----------------------------------------------------
    def health(self):
        """GET /health: cheap, probed on every port of a scan."""
        with self._lock:
            return {"ok": True, "frame": self.frame, "capabilities": self.capabilities, "sessionEpoch": self.session_epoch}

    def state(self):
        """GET /state: the game's snapshot plus the fields the kit owns."""
        with self._lock:
            self._expire_leases()
            now = time.monotonic()
            s = dict(self._snapshot())
            s.update({"frame": self.frame, "simFrame": self.sim_frame, "completedCommandId": self._completed,
                      "commandResults": list(self._results), "sessionEpoch": self.session_epoch,
                      "clock": {"paused": self._paused, "stepFramesLeft": self._step_left}})
            if any(c in self.capabilities for c in INPUT_CAPS):
                s["input"] = {"held": [{"input": i, "owner": o, "leaseMsLeft": math.ceil((d - now) * 1000)}
                                       for (i, o), d in self._held.items()]
                              + [{"input": a, "owner": o, "leaseMsLeft": math.ceil((d - now) * 1000), "value": v}
                                 for (a, o), (v, d) in self._axis_holds.items()]}
                if self._axes:
                    s["input"]["axes"] = {a["name"]: self._axis_value(a["name"]) for a in self._axes}
                if "pointer" in self.capabilities:
                    s["input"]["pointer"] = dict(self._pointer)
                if "touch" in self.capabilities:
                    s["input"]["touches"] = [{"id": i, "x": t["x"], "y": t["y"]} for i, t in sorted(self._touches.items())]
            return s

    def ui(self):
        """GET /ui: this frame's UI tree publication, or None (404)."""
        if self._ui_tree is None:
            return None
        with self._lock:
            return self._ui_tree.publish(self.frame, self.session_epoch)

    def world(self):
        """GET /world: this frame's world publication, or None (404)."""
        if self._world_tree is None:
            return None
        with self._lock:
            return self._world_tree.publish(self.frame, self.session_epoch)

    def tools(self):
        """GET /tools: the game's manifest with name, version and capabilities, or None (404)."""
        if self._manifest is None:
            return None
        m = dict(self._manifest() if callable(self._manifest) else self._manifest)
        game = dict(m.get("game") or {"name": self.name, "version": self.version, "protocol": self.protocol})
        game["capabilities"] = self.capabilities
        if self._inputs is not None:
            game["inputs"] = self._inputs
        if self._axes:
            game["axes"] = [dict(a) for a in self._axes]
        for flag in ("pointer", "touch", "text"):
            if flag in self.capabilities:
                game[flag] = True
        m["game"] = game
        return m

    def known(self):
        """Command names this game accepts, for refusals."""
        reserved = [r for r in RESERVED if NEEDS.get(r, r.split(".")[0]) in self.capabilities
                    or (r in ("input.release", "input.releaseAll") and any(c in self.capabilities for c in INPUT_CAPS))]
        return sorted(self._commands) + [CLOSE] + reserved + [STALL]

    def enqueue(self, cmd, raw):
        """Validate on the HTTP thread, then queue: the answer /command sends."""
        if cmd not in self.known():
            return {"accepted": False, "error": "unknown command '%s'" % cmd, "known": self.known()}
        args = Args(raw)
        try:
            why = self._validate(cmd, args)
        except ArgError as e:
            why = str(e)
        if why:
            return {"accepted": False, "error": why}  # the bridge names the command itself
        with self._lock:
            cid, self._next_id = self._next_id, self._next_id + 1
            self._queue.append((cid, cmd, args))
            return {"accepted": True, "commandId": cid, "frame": self.frame}

    def screenshot(self):
        """GET /screenshot: PNG bytes, or None (404)."""
        return self._screenshot() if self._screenshot else None

    # ---- internals -------------------------------------------------------------------
    def _validate(self, cmd, args):
        """Why the command is refused (None: accepted); the reserved ones are checked here."""
        if cmd.startswith("input.") and not args.string("owner").strip():
            return "argument 'owner' must not be empty (whoever holds the input)"
        if cmd == "input.hold" and not 0 < args.number("leaseMs") <= MAX_LEASE_MS:
            return "argument 'leaseMs' must be > 0 and <= %d, got %s" % (MAX_LEASE_MS, args.raw["leaseMs"])
        axis_names = [a["name"] for a in self._axes]
        if cmd == "input.hold" and args.string("input") not in (self._inputs or []):
            return "unknown input '%s' (this game reads: %s)" % (args.raw["input"], ", ".join(self._inputs or []) or "none")
        if cmd == "input.release" and args.string("input") not in (self._inputs or []) + axis_names:
            return "unknown input '%s' (this game reads: %s)" % (
                args.raw["input"], ", ".join((self._inputs or []) + axis_names) or "none")
        if cmd.startswith("input.") and cmd in NEEDS:
            return self._validate_input(cmd, args, axis_names)
        if cmd.startswith("ui."):
            args.string("id")
            if cmd == "ui.setValue":
                args.string("value")
        if cmd == STALL and not 1 <= args.number("ms") <= MAX_STALL_MS:
            return "argument 'ms' must be from 1 to %d, got %s" % (MAX_STALL_MS, args.raw["ms"])
        if cmd == "clock.step":
            frames = args.number("frames")
            if frames != int(frames) or not 1 <= frames <= MAX_STEP_FRAMES:
                return "argument 'frames' must be a whole number from 1 to %d, got %s" % (MAX_STEP_FRAMES, args.raw["frames"])
        handler = self._commands.get(cmd)
        return handler.validate(args) if handler and handler.validate else None

    def _apply_queue(self):
        # In order; a clock.step holds back everything after it until its frames have run,
        # so hold -> step -> release sent back to back does what it says.
        while self._queue and self._step_left == 0 and self._click is None:
            cid, cmd, args = self._queue.pop(0)
            result = {"id": cid, "ok": True}
            try:
                self._apply(cid, cmd, args)
            except Exception as e:  # a failing command still completes (the bridge must not wait
                # forever), and its result carries the game's words for the agent
                result = {"id": cid, "ok": False, "error": (str(e) or type(e).__name__)[:MAX_ERROR_CHARS]}
                self._log("command #%d '%s' failed: %r" % (cid, cmd, e))
                self._note_error(e, "command")
            self._results = (self._results + [result])[-RESULTS_KEPT:]
            if self._step_left == 0 and not self._click_pressing():
                self._completed = cid

    def _note_error(self, e, source):
        """An error the kit caught, with its frame and stack, for GET /errors."""
        self._error_seq += 1
        stack = "".join(traceback.format_tb(e.__traceback__)).strip()[-2000:]
        entry = {"seq": self._error_seq, "frame": self.frame, "source": source,
                 "message": ("%s: %s" % (type(e).__name__, e))[:MAX_ERROR_CHARS]}
        if stack:
            entry["stack"] = stack
        self._errors = (self._errors + [entry])[-ERRORS_KEPT:]

    def errors(self, since):
        """GET /errors?since=N: the errors caught after N, oldest first, and the latest number."""
        with self._lock:
            return {"seq": self._error_seq, "errors": [e for e in self._errors if e["seq"] > since]}

    def _time_frame(self):
        """A tick starts: the previous frame's time is known now; hold the thread if a stall is due."""
        now = time.perf_counter()
        if self._frame_start is not None:
            self._frames.append((self.frame - 1, self.sim_frame, (now - self._frame_start) * 1000.0))
        self._frame_start = now
        if self._stall and self._stall[0] == self.frame:
            time.sleep(self._stall[1])
            self._stall = None

    def frames(self, since):
        """GET /frames: the kept frame times after frame `since`, oldest first."""
        with self._lock:
            return {"frames": [{"frame": f, "simFrame": sf, "ms": round(ms, 3)} for f, sf, ms in self._frames if f > since],
                    "kept": FRAMES_KEPT}

    def _click_pressing(self):
        """A click still has a press to come: it completes on the tick of its last press."""
        return self._click is not None and "press" in self._click[5]

    def _click_tick(self):
        """input.click's next press or lift, one a tick, so a game that polls the button sees
        each press for a frame; later commands wait until the click has lifted."""
        if self._click is None:
            return
        cid, owner, x, y, bit, left = self._click
        phase = left.pop(0)
        mine = self._buttons_of.get(owner, 0)
        self._move_pointer(x, y, mine | bit if phase == "press" else mine & ~bit, owner)
        if not left:
            self._click = None
        if phase == "press" and "press" not in left:
            self._completed = cid

    def _validate_input(self, cmd, args, axis_names):
        """Why a pointer, wheel, touch, axis or text command is refused: every value in its range."""
        def within(name, low, high, whole=False):
            v = args.number(name)
            if (whole and v != int(v)) or not low <= v <= high:
                return "argument '%s' must be %s from %s to %s, got %s" % (
                    name, "a whole number" if whole else "a number", _bound(low), _bound(high), args.raw[name])
        if cmd == "input.axis":
            if args.string("input") not in axis_names:
                return "unknown axis '%s' (this game reads: %s)" % (args.raw["input"], ", ".join(axis_names))
            if not 0 < args.number("leaseMs") <= MAX_LEASE_MS:
                return "argument 'leaseMs' must be > 0 and <= %d, got %s" % (MAX_LEASE_MS, args.raw["leaseMs"])
            a = self._axes[axis_names.index(args.string("input"))]
            v = args.number("value")
            if not a["min"] <= v <= a["max"]:
                return "argument 'value' must be within %s..%s for axis '%s', got %s" % (
                    _bound(a["min"]), _bound(a["max"]), a["name"], args.raw["value"])
            return None
        if cmd == "input.text":
            text = args.string("text")
            if not 1 <= len(text) <= MAX_TEXT:
                return "argument 'text' must be 1 to %d characters, got %d" % (MAX_TEXT, len(text))
            return None
        if cmd == "input.wheel":
            return within("dx", -MAX_WHEEL, MAX_WHEEL) or within("dy", -MAX_WHEEL, MAX_WHEEL)
        why = within("x", 0, MAX_COORD) or within("y", 0, MAX_COORD)
        if why:
            return why
        if cmd == "input.pointer":
            return within("buttons", 0, 7, whole=True)
        if cmd == "input.click":
            if args.number("button") not in (1, 2, 4):
                return "argument 'button' must be 1 (left), 2 (right) or 4 (middle), got %s" % args.raw["button"][:40]
            return within("count", 1, MAX_CLICKS, whole=True)
        if args.string("phase") not in TOUCH_PHASES:
            return "argument 'phase' must be down, move or up, got '%s'" % args.raw["phase"][:40]
        return within("id", 0, MAX_TOUCH_ID, whole=True)

    def _apply(self, cid, cmd, args):
        """Applies one queued command on the tick."""
        owner = args.raw.get("owner")
        if cmd == STALL:
            at = int(args.number("frame", self.frame))
            if at < self.frame:
                raise ValueError("frame %d has passed (the game is at frame %d)" % (at, self.frame))
            self._stall = (at, args.number("ms") / 1000.0)
            if at == self.frame:
                time.sleep(self._stall[1])
                self._stall = None
        elif cmd == "input.hold":
            self._held[(args.string("input"), owner)] = time.monotonic() + args.number("leaseMs") / 1000.0
        elif cmd == "input.release":
            self._held.pop((args.string("input"), owner), None)
            self._axis_holds.pop((args.string("input"), owner), None)
        elif cmd == "input.releaseAll":
            self._held = {k: d for k, d in self._held.items() if k[1] != owner}
            self._axis_holds = {k: h for k, h in self._axis_holds.items() if k[1] != owner}
            if owner in self._buttons_of:
                self._move_pointer(self._pointer["x"], self._pointer["y"], 0, owner)
            for tid in [i for i, t in self._touches.items() if t["owner"] == owner]:
                t = self._touches.pop(tid)
                self._emit({"type": "touchup", "id": tid, "x": t["x"], "y": t["y"], "dx": 0.0, "dy": 0.0})
        elif cmd == "input.axis":
            key = (args.string("input"), owner)
            self._axis_holds.pop(key, None)  # re-inserted last: the latest hold wins
            self._axis_holds[key] = (args.number("value"), time.monotonic() + args.number("leaseMs") / 1000.0)
        elif cmd == "input.pointer":
            self._move_pointer(args.number("x"), args.number("y"), int(args.number("buttons")), owner)
        elif cmd == "input.click":
            # down now, up on the next tick (_click_tick), `count` times
            self._click = [cid, owner, args.number("x"), args.number("y"), int(args.number("button")),
                           ["press", "lift"] * int(args.number("count"))]
            self._click_tick()
        elif cmd == "input.wheel":
            self._emit({"type": "wheel", "x": self._pointer["x"], "y": self._pointer["y"],
                        "dx": args.number("dx"), "dy": args.number("dy")})
        elif cmd == "input.touch":
            self._apply_touch(int(args.number("id")), args.string("phase"), args.number("x"), args.number("y"), owner)
        elif cmd == "input.text":
            self._text.append(args.string("text"))
            del self._text[:-MAX_TEXT]  # a game that never takes its text keeps a bounded queue
            self._emit({"type": "text", "text": args.string("text")})
        elif cmd == "clock.pause":
            self._paused = True
        elif cmd == "clock.resume":
            self._paused = False
        elif cmd == "clock.step":
            self._paused, self._step_left, self._step_id = True, int(args.number("frames")), cid
        elif cmd.startswith("ui."):
            self._apply_ui(cmd, args)
        elif cmd == CLOSE:
            self._on_close("command")
        else:
            self._commands[cmd].apply(args)

    def _apply_ui(self, cmd, args):
        """ui.*: re-checks the node as it is on this tick, then calls the game's handler."""
        node = _usable_node((self._ui() or {}).get("nodes") or [], args.string("id"))
        what = "'%s' (%s)" % (_label(node), node.get("role"))
        if cmd == "ui.activate":
            if not callable(node.get("activate")):
                raise ValueError("%s cannot be activated" % what)
            node["activate"]()
        elif cmd == "ui.setValue":
            value = _parse_value(node, args.string("value"))
            if not callable(node.get("setValue")):
                raise ValueError("%s takes no value" % what)
            node["setValue"](value)
        else:
            if not callable(node.get("focus")):
                raise ValueError("%s cannot take focus" % what)
            node["focus"]()

    def _move_pointer(self, x, y, buttons, owner):
        """Moves the pointer and sets `owner`'s buttons, then presses and lifts the buttons that
        changed, as events. One mouse: a button is down while any owner holds it."""
        p = self._pointer
        if (x, y) != (p["x"], p["y"]):
            self._emit({"type": "pointermove", "x": x, "y": y, "dx": x - p["x"], "dy": y - p["y"], "buttons": p["buttons"]})
        if buttons:
            self._buttons_of[owner] = buttons
        else:
            self._buttons_of.pop(owner, None)
        down = 0
        for b in self._buttons_of.values():
            down |= b
        changed, before = down ^ p["buttons"], p["buttons"]
        p.update(x=x, y=y, buttons=down)
        for bit, name in BUTTONS:
            if changed & bit:
                self._emit({"type": "pointerdown" if down & bit else "pointerup", "x": x, "y": y,
                            "button": name, "buttons": down})
        return before

    def _apply_touch(self, tid, phase, x, y, owner):
        t = self._touches.get(tid)
        if phase == "down":
            if t is not None:
                raise ValueError("touch %d is already down (send phase move or up)" % tid)
            self._touches[tid] = {"x": x, "y": y, "owner": owner}
            self._emit({"type": "touchdown", "id": tid, "x": x, "y": y, "dx": 0.0, "dy": 0.0})
            return
        if t is None:
            raise ValueError("touch %d is not down (send phase down first)" % tid)
        dx, dy = x - t["x"], y - t["y"]
        if phase == "up":
            del self._touches[tid]
        else:
            t.update(x=x, y=y)
        self._emit({"type": "touch" + phase, "id": tid, "x": x, "y": y, "dx": dx, "dy": dy})

    def _axis_value(self, name):
        value = 0.0
        for (a, _owner), (v, _d) in self._axis_holds.items():  # in hold order: the latest wins
            if a == name:
                value = v
        return value

    def _tell_axes(self):
        """On the tick: an axis event for each axis whose value changed (set, released, lease over)."""
        for i, a in enumerate(self._axes):
            v = self._axis_value(a["name"])
            if v != self._axis_told[a["name"]]:
                self._axis_told[a["name"]] = v
                self._emit({"type": "axis", "name": a["name"], "index": i, "value": v})

    def _emit(self, event):
        """Hands one input change to the game's on_input, on the tick."""
        if self._on_input:
            self._on_input(event)

    def _expire_leases(self):
        """Drops the holds whose lease ran out: the game, not the bridge, enforces leases."""
        now = time.monotonic()
        if any(d <= now for d in self._held.values()):
            self._held = {k: d for k, d in self._held.items() if d > now}
        if any(d <= now for _v, d in self._axis_holds.values()):
            self._axis_holds = {k: h for k, h in self._axis_holds.items() if h[1] > now}

    def _on_signal(self, signum, _frame):
        """SIGINT/SIGTERM: ask the game to end through its normal exit."""
        if not self.running:  # a second signal: the game did not stop, leave now
            self._unregister()
            os._exit(128 + signum)
        self._on_close(signal.Signals(signum).name)

    def _write_registry_entry(self):
        # Atomic (temp file + rename); a registry failure must never break the game.
        directory = registry_dir()
        path = os.path.join(directory, "%d.json" % os.getpid())
        tmp = "%s.%d.tmp" % (path, time.monotonic_ns())
        entry = {"name": self.name, "version": self.version, "protocol": self.protocol, "port": self.port,
                 "pid": os.getpid(), "host": "127.0.0.1", "started": datetime.now(timezone.utc).isoformat(),
                 "cwd": os.getcwd()}
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
                json.dump(entry, f, indent=2)
            os.replace(tmp, path)
            self.registry_file = path
        except OSError as e:
            self._log("could not write the registry entry %s (%s); discovery falls back to port scans" % (path, e))

    def _unregister(self):
        """Removes our registry entry (idempotent; also runs at exit)."""
        path, self.registry_file = self.registry_file, None
        if path:
            try:
                os.unlink(path)
            except OSError:
                pass


def _bound(v):
    """A range bound as people write it: 1, not 1.0."""
    return str(int(v)) if float(v) == int(v) else str(v)


def _axis_decl(a):
    """An axis declaration, {"name", "min", "max"} (or a (name, min, max) tuple), checked at start-up."""
    name, low, high = (a["name"], a["min"], a["max"]) if isinstance(a, dict) else a
    if not isinstance(name, str) or not name or not all(isinstance(v, (int, float)) for v in (low, high)) or not low < high:
        raise ValueError("gamebridge: an axis is {'name', 'min', 'max'} with min < max, got %r" % (a,))
    if not low <= 0 <= high:
        raise ValueError("gamebridge: axis '%s' rests at 0, so its range must hold 0, got %s..%s" % (name, low, high))
    return {"name": name, "min": low, "max": high}


def pygame_events(pygame_module=None):
    """An on_input that posts each change as the real pygame event, so a game reading
    pygame.event.get() gets the agent's pointer, wheel, touches, axes and text there:
    MOUSEMOTION, MOUSEBUTTONDOWN/UP (button 1 left, 2 middle, 3 right), MOUSEWHEEL (100 pixels
    a notch; dy > 0 scrolls down, as on a page, which is y < 0 in pygame), FINGERDOWN/MOTION/UP
    (touch_id 0, x, y as fractions of the display surface), JOYAXISMOTION (from the bridge's
    joystick, axis = the axis's place in `axes`) and TEXTINPUT. It also makes pygame's own
    queries follow the agent, so a game that polls them needs no extra code:
    pygame.mouse.get_pos() and get_pressed() report the one mouse (see _follow_mouse); with
    axes, pygame.joystick counts and makes the bridge's joystick (see _BridgeJoystick); with
    touch, pygame._sdl2.touch lists its touch device and fingers (see _follow_touch)."""
    pg = pygame_module
    if pg is None:
        import pygame as pg  # the kit itself needs only the standard library
    pressed = {"left": 1, "middle": 2, "right": 3}
    mouse = _follow_mouse(pg)
    pad = _BridgeJoystick(pg)
    fingers = {}  # the agent's touch points down, id -> (x, y) as fractions of the display surface

    def notches(d):
        n = int(round(d / 100.0))
        return n if n or not d else (1 if d > 0 else -1)

    def post(kind, **fields):
        pg.event.post(pg.event.Event(kind, **fields))

    def announce():
        """JOYDEVICEADDED for the bridge's joystick, once, as SDL announces each pad at start."""
        if pad.attached and not pad.announced:
            pad.announced = True
            post(pg.JOYDEVICEADDED, device_index=pad.get_id(), guid=pad.get_guid())

    def on_input(e):
        announce()
        kind = e["type"]
        if kind.startswith("pointer"):
            mouse.moved(e)
        if kind == "pointermove":
            b = e["buttons"]
            post(pg.MOUSEMOTION, pos=(int(e["x"]), int(e["y"])), rel=(int(e["dx"]), int(e["dy"])),
                 buttons=(int(bool(b & 1)), int(bool(b & 4)), int(bool(b & 2))), touch=False)
        elif kind in ("pointerdown", "pointerup"):
            post(pg.MOUSEBUTTONDOWN if kind == "pointerdown" else pg.MOUSEBUTTONUP,
                 pos=(int(e["x"]), int(e["y"])), button=pressed[e["button"]], touch=False)
        elif kind == "wheel":
            post(pg.MOUSEWHEEL, x=notches(e["dx"]), y=-notches(e["dy"]), flipped=False,
                 precise_x=e["dx"] / 100.0, precise_y=-e["dy"] / 100.0, touch=False, which=0)
        elif kind.startswith("touch"):
            screen = pg.display.get_surface()
            w, h = screen.get_size() if screen else (1, 1)
            if kind == "touchup":
                fingers.pop(e["id"], None)
            else:
                fingers[e["id"]] = (e["x"] / w, e["y"] / h)
            post({"touchdown": pg.FINGERDOWN, "touchmove": pg.FINGERMOTION, "touchup": pg.FINGERUP}[kind],
                 touch_id=BRIDGE_TOUCH_ID, finger_id=e["id"], x=e["x"] / w, y=e["y"] / h, dx=e["dx"] / w,
                 dy=e["dy"] / h, pressure=0.0 if kind == "touchup" else 1.0)
        elif kind == "axis":
            pad.values[e["index"]] = e["value"]
            joy = pad.get_instance_id()
            post(pg.JOYAXISMOTION, joy=joy, instance_id=joy, axis=e["index"], value=e["value"])
        elif kind == "text":
            post(pg.TEXTINPUT, text=e["text"])

    def attach(surface):
        if surface._axes:
            pad.attach(surface)
            if getattr(pg.display, "get_init", lambda: False)():  # pygame's event queue is up
                announce()
        if "touch" in surface.capabilities:
            _follow_touch(pg, fingers)

    on_input.attach = attach
    return on_input


# pygame.mouse's own functions, for the real device, once the kit has replaced them.
real_mouse = {}


class _AgentMouse:
    """The agent's side of the one mouse, as pygame_events hears it on the tick."""

    def __init__(self, real_get_pos):
        self.real_get_pos, self.pos, self.real_at, self.buttons = real_get_pos, None, None, 0

    def moved(self, e):
        self.pos, self.real_at = (int(e["x"]), int(e["y"])), self.real_get_pos()
        if e["type"] != "pointermove":
            self.buttons = e["buttons"]

    def get_pos(self):
        """The agent's position from its move until the real mouse moves, else the real one."""
        real = self.real_get_pos()
        if self.pos is not None and real == self.real_at:
            return self.pos
        self.pos = None
        return real


def _follow_mouse(pg):
    """Makes pygame.mouse.get_pos() and get_pressed() report the one mouse, so a game that polls
    them sees the agent's pointer: a button is down while the real device or any owner holds it.
    The real functions stay in gamebridge.real_mouse."""
    if not real_mouse:
        real_mouse.update(get_pos=pg.mouse.get_pos, get_pressed=pg.mouse.get_pressed)
    agent = _AgentMouse(real_mouse["get_pos"])

    def get_pressed(*args, **kwargs):
        real = real_mouse["get_pressed"](*args, **kwargs)
        bits = (1, 4, 2)  # pygame's left, middle, right
        return tuple(bool(down) or (i < len(bits) and bool(agent.buttons & bits[i])) for i, down in enumerate(real))

    pg.mouse.get_pos, pg.mouse.get_pressed = agent.get_pos, get_pressed
    return agent


# pygame.joystick's and pygame._sdl2.touch's own functions, once the kit has replaced them.
real_joystick = {}
real_touch = {}
BRIDGE_TOUCH_ID = 0  # the touch device the agent's fingers are on, in events and in pygame._sdl2.touch


class _BridgeJoystick:
    """The bridge's joystick, as pygame.joystick.Joystick answers: its axes are the declared axes
    in their order, at the values the game last heard as JOYAXISMOTION; its buttons are the
    declared inputs in their order, down (1) while any owner holds them. pygame.joystick lists it
    after the real joysticks: its device index and instance id are their count when it is made
    (0 on a machine without one), as SDL numbers a pad plugged in last. A JOYDEVICEADDED names
    it once: when the surface is made, if pygame's display is initialised, else with the
    agent's first input."""

    def __init__(self, pg):
        self._pg, self._surface, self.values, self._index = pg, None, [], None
        self.announced = False  # its JOYDEVICEADDED posted

    @property
    def attached(self):
        return self._surface is not None

    def attach(self, surface):
        """Follows this surface's axes and inputs, and puts itself in pygame.joystick."""
        self._surface, self.values = surface, [0.0] * len(surface._axes)
        joystick = self._pg.joystick
        if not real_joystick:
            real_joystick.update(get_count=joystick.get_count, Joystick=joystick.Joystick)

        def get_count():
            return self._real_count() + 1

        def make(index):
            if index == self._real_count():
                self._index = index
                return self
            return real_joystick["Joystick"](index)

        joystick.get_count, joystick.Joystick = get_count, make

    def _real_count(self):
        try:
            return real_joystick["get_count"]()
        except self._pg.error:  # pygame.joystick not initialised: no real joystick to count, the bridge's is there
            return 0

    def _place(self):
        return self._index if self._index is not None else self._real_count()

    def init(self):
        pass

    def quit(self):
        pass

    def get_init(self):
        return True

    def get_id(self):
        return self._place()

    def get_instance_id(self):
        return self._place()

    def get_guid(self):
        return "game-bridge"

    def get_name(self):
        return "game-bridge"

    def get_power_level(self):
        return "unknown"

    def get_numaxes(self):
        return len(self.values)

    def get_axis(self, i):
        if not 0 <= i < len(self.values):
            raise self._pg.error("Invalid joystick axis")
        return self.values[i]

    def get_numbuttons(self):
        return len(self._inputs())

    def get_button(self, i):
        inputs = self._inputs()
        if not 0 <= i < len(inputs):
            raise self._pg.error("Invalid joystick button")
        return int(self._surface.is_held(inputs[i]))

    def get_numballs(self):
        return 0

    def get_ball(self, _i):
        raise self._pg.error("Invalid joystick trackball")

    def get_numhats(self):
        return 0

    def get_hat(self, _i):
        raise self._pg.error("Invalid joystick hat")

    def rumble(self, *_args):
        return False

    def stop_rumble(self):
        pass

    def _inputs(self):
        return (self._surface._inputs or []) if self._surface else []


def _sdl2_touch(pg):
    """pygame._sdl2.touch, where this pygame has it, else None."""
    try:
        importlib.import_module(pg.__name__ + "._sdl2.touch")
    except (AttributeError, ImportError):
        pass
    return getattr(getattr(pg, "_sdl2", None), "touch", None)


def _follow_touch(pg, fingers):
    """Makes pygame._sdl2.touch list the agent's touch device (BRIDGE_TOUCH_ID) after the real
    ones, with the agent's fingers down on it ({"id", "x", "y", "pressure"}, x and y as
    fractions of the display surface), so a game that polls fingers sees the agent's."""
    touch = _sdl2_touch(pg)
    if touch is None:
        return
    if not real_touch:
        real_touch.update(get_num_devices=touch.get_num_devices, get_device=touch.get_device,
                          get_num_fingers=touch.get_num_fingers, get_finger=touch.get_finger)

    def get_num_devices():
        return real_touch["get_num_devices"]() + 1

    def get_device(index):
        if index == real_touch["get_num_devices"]():
            return BRIDGE_TOUCH_ID
        return real_touch["get_device"](index)

    def get_num_fingers(touch_id):
        if touch_id == BRIDGE_TOUCH_ID:
            return len(fingers)
        return real_touch["get_num_fingers"](touch_id)

    def get_finger(touch_id, index):
        if touch_id != BRIDGE_TOUCH_ID:
            return real_touch["get_finger"](touch_id, index)
        down = list(fingers.items())
        if not 0 <= index < len(down):
            raise pg.error("Invalid finger index")
        fid, (x, y) = down[index]
        return {"id": fid, "x": x, "y": y, "pressure": 1.0}

    touch.get_num_devices, touch.get_device = get_num_devices, get_device
    touch.get_num_fingers, touch.get_finger = get_num_fingers, get_finger


class _Tree:
    """One tree's publications: built at most once a frame (a request in the same frame gets the
    same snapshot), swapped in whole. frameSequence counts publications; revision grows only when
    the serialized content differs from the previous publication's."""

    def __init__(self, build):
        self._build, self._frame, self._body, self._content = build, None, None, None
        self._revision, self._sequence = 0, 0

    def publish(self, frame, session_epoch):
        if self._body is not None and frame == self._frame:
            return self._body
        content = self._build()
        text = json.dumps(content, sort_keys=True)
        if text != self._content:
            self._content, self._revision = text, self._revision + 1
        self._sequence, self._frame = self._sequence + 1, frame
        self._body = dict({"sessionEpoch": session_epoch, "frameSequence": self._sequence,
                           "revision": self._revision}, **content)
        return self._body


def _ui_content(tree):
    tree = tree or {}
    content = {"screen": tree["screen"]} if tree.get("screen") is not None else {}
    content["nodes"] = [_plain_node(n) for n in tree.get("nodes") or []]
    return content


def _plain_node(node):
    """A node as GET /ui shows it: no handlers, visible/enabled left out at their default."""
    out = {}
    for key, value in node.items():
        if value is None or callable(value) or (key in ("visible", "enabled") and value is True):
            continue
        if key == "children":
            if value:
                out["children"] = [_plain_node(c) for c in value]
            continue
        out[key] = value
    return out


def _plain_object(obj):
    out = {k: v for k, v in obj.items() if v is not None and not callable(v)}
    if out.get("player") is not True:
        out.pop("player", None)
    return out


def _label(node):
    return node.get("name") or node.get("id")


def _find_path(nodes, node_id):
    for n in nodes:
        if n.get("id") == node_id:
            return [n]
        below = _find_path(n.get("children") or [], node_id)
        if below:
            return [n] + below
    return None


def _usable_node(nodes, node_id):
    """The node as it is now; under a hidden or disabled parent it is hidden or disabled too."""
    path = _find_path(nodes, node_id)
    if not path:
        raise ValueError("no UI node '%s'" % node_id)
    node = path[-1]
    if any(n.get("visible") is False for n in path):
        raise ValueError("'%s' is hidden" % _label(node))
    if any(n.get("enabled") is False for n in path):
        raise ValueError("'%s' is disabled" % _label(node))
    return node


def _parse_value(node, text):
    """The value as the node's role takes it; out of range or not one of its options fails."""
    name, role = _label(node), node.get("role")
    if role in NUMERIC_ROLES:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("'%s' takes a number, got '%s'" % (name, text[:40]))
        lo, hi = node.get("min"), node.get("max")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError("'%s' takes %s to %s, got %s" % (name, _num(lo, "-\u221e"), _num(hi, "\u221e"), _num(value, "")))
        return value
    if role in CHECKABLE_ROLES:
        if text in ("true", "false"):
            return text == "true"
        raise ValueError("'%s' takes true or false, got '%s'" % (name, text[:40]))
    if role in CHOICE_ROLES and node.get("children"):
        options = [c.get("name") for c in node["children"]]
        if text not in options:
            raise ValueError("'%s' has no option '%s' (options: %s)" % (name, text[:40], ", ".join(map(str, options))))
    return text


def _num(x, absent):
    """5.0 -> '5', as the Node kit writes numbers."""
    if x is None:
        return absent
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _refusal(headers, port):
    """Why a request is refused as a browser's (docs/CONTRACT.md, "Refuse browsers"), or None.
    Any web page can make the user's browser call a loopback port, and a DNS-rebinding page does
    it under its own Host name; the bridge and curl send neither Origin nor Sec-Fetch-Site."""
    host = headers.get("Host")
    if host not in ("127.0.0.1:%d" % port, "localhost:%d" % port):
        return "Forbidden: unexpected Host header '%s' (this port answers 127.0.0.1:%d only)" % ((host or "")[:100], port)
    if headers.get("Origin") is not None or headers.get("Sec-Fetch-Site", "none") != "none":
        return "Forbidden: browser requests are refused on a game port"
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the bridge polls /state on one connection
    timeout = 30  # an idle kept-alive connection frees its thread
    # On a kept-alive connection a response split in two writes (headers, then body) makes
    # Nagle's algorithm hold the body until the client's delayed ACK of the headers: every poll
    # waits for it. So a response is buffered and leaves in one write (the server flushes once
    # after do_GET), and the socket sends at once (TCP_NODELAY) for what exceeds the buffer.
    wbufsize = -1
    disable_nagle_algorithm = True
    surface = None

    def do_GET(self):
        """Routes one contract request; only /command changes anything, and only the queue."""
        url = urlsplit(self.path)
        s = self.surface
        # http.server keeps both of two Host headers; a proxy in front could read the other one.
        if len(self.headers.get_all("Host") or []) > 1:
            return self._json(400, {"ok": False, "accepted": False, "error": "Bad Request: more than one Host header"})
        refused = _refusal(self.headers, s.port)
        if refused:
            return self._json(403, {"ok": False, "accepted": False, "error": refused})
        if url.path == "/health":
            return self._json(200, s.health())
        if url.path == "/state":
            return self._json(200, s.state())
        if url.path == "/command":
            raw = dict(parse_qsl(url.query, keep_blank_values=True))
            cmd = raw.pop("cmd", "")
            if not cmd:
                return self._json(400, {"accepted": False, "error": "missing 'cmd' (GET /command?cmd=NAME&arg=value)", "known": s.known()})
            return self._json(200, s.enqueue(cmd, raw))
        if url.path == "/errors":
            since = dict(parse_qsl(url.query)).get("since", "0")
            return self._json(200, s.errors(int(since) if since.isdigit() else 0))
        if url.path == "/tools":
            m = s.tools()
            return self._json(200, m) if m is not None else self._json(404, {"error": "this game publishes no manifest"})
        if url.path == "/frames":
            since = dict(parse_qsl(url.query)).get("since", "-1")
            try:
                return self._json(200, s.frames(float(since)))
            except ValueError:
                return self._json(400, {"error": "'since' must be a frame number, got '%s'" % since[:40]})
        if url.path in ("/ui", "/world"):
            tree = s.ui() if url.path == "/ui" else s.world()
            if tree is None:
                return self._json(404, {"error": "this game publishes no %s" % ("UI tree" if url.path == "/ui" else "world tree")})
            return self._json(200, tree)
        if url.path == "/screenshot":
            png = s.screenshot()
            if png is None:
                return self._json(404, {"error": "this game takes no screenshots"})
            return self._send(200, "image/png", png)
        endpoints = ["/health", "/state", "/command", "/tools", "/errors", "/frames"] + ["/" + c for c in ("ui", "world") if c in s.capabilities]
        self._json(404, {"error": "no such endpoint '%s'" % url.path, "endpoints": endpoints + ["/screenshot"]})

    def _json(self, status, body):
        self._send(status, "application/json; charset=utf-8", json.dumps(body).encode("utf-8"))

    def _send(self, status, content_type, data):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args):  # the game's own output stays readable
        pass
