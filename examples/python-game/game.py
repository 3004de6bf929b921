#!/usr/bin/env python3
"""Walker: a small side-scroller on the Python kit (python3 game.py --debug-port 7820).

The walker moves while `left` or `right` is held (or at the analog `walk` axis's speed),
jumps on `jump`, and collects coins along a
track; `reset` starts a new run (a new session epoch). The agent holds inputs, pauses and
steps the clock through the kit's built-in `input.*` and `clock.*` commands. The HUD's Menu
button opens a small pause menu (the UI tree at GET /ui); the walker and the coins left are
the world objects (GET /world).
"""
import argparse
import os
import sys
import time

# In your own game, copy kits/python/gamebridge.py next to game.py; this example uses it in place.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kits", "python"))
import gamebridge  # noqa: E402

FPS = 60
SPEED = 2.0  # units per simulated frame while a direction is held
JUMP_SPEED, GRAVITY = 6.0, 0.5
COINS = [20, 45, 80, 120, 160]
TRACK_END = 200


class Walker:
    """The game state; every change happens on the game loop."""

    def __init__(self):
        self.run = 0
        self.menu_open, self.volume = False, 0.8
        self.new_run()

    def new_run(self):
        self.run += 1
        self.menu_open = False
        self.x, self.y, self.vy, self.walk = 0.0, 0.0, 0.0, 0.0
        self.coins, self.jumps, self.events = [], 0, []

    def on_ground(self):
        return self.y == 0 and self.vy == 0

    def jump(self):
        """Raises in the air: the kit turns it into the command's failed result, with these words."""
        if not self.on_ground():
            raise ValueError("the walker is in the air (jump again once it lands)")
        self.vy, self.jumps = JUMP_SPEED, self.jumps + 1
        self.events.append({"m": "jump:%d" % self.jumps})

    def step(self, held, walk=0.0):
        """One simulated frame, with held(input) telling which inputs are down and walk the
        analog stick (-1..1: full speed left to full speed right)."""
        if self.menu_open:  # the pause menu stops the walk
            return
        self.walk = walk
        dx = (SPEED if held("right") else 0) - (SPEED if held("left") else 0) + SPEED * walk
        self.x = min(max(self.x + dx, 0.0), TRACK_END)
        if self.y > 0 or self.vy > 0:
            self.y, self.vy = max(self.y + self.vy, 0.0), self.vy - GRAVITY
            if self.y == 0:
                self.vy = 0.0
        for c in COINS:
            if c not in self.coins and abs(self.x - c) < SPEED:
                self.coins.append(c)
                self.events.append({"m": "coin:%d" % c})
        self.events = self.events[-20:]

    def screen(self):
        return "MenuScreen" if self.menu_open else "FinishScreen" if self.x >= TRACK_END else "GameScreen"

    def snapshot(self):
        return {"ui": {"screen": self.screen()}, "events": list(self.events),
                "game": {"run": self.run, "x": self.x, "y": self.y, "walk": self.walk, "jumps": self.jumps, "coins": list(self.coins)}}


def ui_tree(walker, new_run):
    """What the player sees: the HUD, or the pause menu with its buttons and settings."""
    def opened(flag):
        return lambda: setattr(walker, "menu_open", flag)

    if walker.menu_open:
        nodes = [{"id": "menu", "role": "dialog", "name": "Paused", "children": [
            {"id": "resume", "role": "button", "name": "Resume", "activate": opened(False)},
            {"id": "new-run", "role": "button", "name": "New run", "activate": new_run},
            {"id": "options", "role": "button", "name": "Options", "enabled": False},
            {"id": "volume", "role": "slider", "name": "Volume", "value": walker.volume, "min": 0, "max": 1,
             "setValue": lambda v: setattr(walker, "volume", v)},
        ]}]
    else:
        nodes = [
            {"id": "coins", "role": "text", "name": "Coins %d/%d" % (len(walker.coins), len(COINS))},
            # a jump needs the ground under the walker: in the air the button is disabled
            {"id": "jump", "role": "button", "name": "Jump", "enabled": walker.on_ground(), "activate": walker.jump},
            {"id": "open-menu", "role": "button", "name": "Menu", "activate": opened(True)},
        ]
    return {"screen": walker.screen(), "nodes": nodes}


def world_objects(walker):
    """The walker and the coins still on the track (a player sees them all)."""
    return [{"id": "walker", "type": "player", "name": "Walker", "pos": [walker.x, walker.y], "player": True}] + [
        {"id": "coin-%d" % c, "type": "coin", "name": "Coin at %d" % c, "pos": [c, 0], "tags": ["coin"], "player": True}
        for c in COINS if c not in walker.coins]


MANIFEST = {"toolsets": [{"name": "play", "description": "Walk the track (hold left/right with the bridge's hold tool)", "tools": [
    {"name": "jump", "description": "Jump, if on the ground", "args": []},
    {"name": "reset", "description": "Start a new run from x=0 (a new session epoch)", "args": []},
    {"name": "teleport", "description": "Put the walker at x", "args": [
        {"name": "x", "type": "number", "description": "Track position, 0-%d" % TRACK_END, "required": True}]},
]}]}


def main():
    ap = argparse.ArgumentParser(description="Walker, a Python game on the game-bridge kit")
    ap.add_argument("--debug-port", type=gamebridge.debug_port, help="serve the game-bridge contract on 127.0.0.1:PORT")
    ap.add_argument("--frames", type=int, default=0, help="without a debug port: run this many frames, then exit")
    opts = ap.parse_args()
    walker = Walker()
    surface = None
    if opts.debug_port is not None:  # no flag, no HTTP surface
        def reset(_args):
            walker.new_run()
            surface.new_epoch()

        def teleport_ok(args):
            if not 0 <= args.number("x") <= TRACK_END:
                return "x must be within 0-%d" % TRACK_END

        surface = gamebridge.GameSurface(
            opts.debug_port, "Walker", "1.0.0", snapshot=walker.snapshot, manifest=MANIFEST,
            inputs=["left", "right"], axes=[{"name": "walk", "min": -1, "max": 1}], step_frames_per_tick=1000,  # its frames read no wall clock
            ui=lambda: ui_tree(walker, lambda: reset(None)), world=lambda: world_objects(walker),
            commands={"jump": lambda _a: walker.jump(), "reset": reset,
                      "teleport": gamebridge.Command(lambda a: setattr(walker, "x", a.number("x")), teleport_ok)})
        try:
            surface.listen()
            print("walker: listening on 127.0.0.1:%d (pid %d)" % (surface.port, os.getpid()), flush=True)
        except OSError as e:  # whatever holds the port would be taken for this game: end instead
            print("walker: %s; exiting" % e.strerror, file=sys.stderr, flush=True)
            return 1

    held = surface.is_held if surface else (lambda _input: False)
    # a surface that could not bind still runs the loop (and ends it on SIGINT/SIGTERM)
    frames = 0
    while surface.running if surface else frames < opts.frames:
        started = time.monotonic()
        if surface:
            surface.tick(lambda: walker.step(held, surface.axis("walk")))
        else:
            walker.step(held)
        frames += 1
        time.sleep(max(0.0, 1.0 / FPS - (time.monotonic() - started)))
    if surface:
        surface.close()
    print("walker: bye after %d frames" % frames, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
