#!/usr/bin/env python3
"""Frog Hop: a small pygame game on the Python kit (python3 game.py --debug-port 7880).

A frog hops along a pond bank catching flies. Arrow keys (or the bridge's held `left` and
`right`) move it, Space (or `jump`) jumps; each fly caught scores one and another appears.
It opens on a menu (Start, a disabled Options, a Volume slider, a Music checkbox) whose items
are drawn on the pygame surface and published as the UI tree with their boxes; the frog and
the flies are the world objects; GET /screenshot is the surface as PNG.

The game reads only pygame's event queue, and the kit posts the agent's inputs there as real
pygame events: a joystick's axis 0 (the bridge's `steer` axis) walks the frog at that speed, a
left click or a tap on the field sends it hopping to that x (and a click on Start or Menu
presses it), the wheel sets the volume, and typed text is the player's name for the score.
Each frame it also polls pygame's own mouse, joystick and touch queries, which the kit makes
follow the agent, into its state (`mouse`, `pad`, `fingers`, `lastFingers`).

Headless (CI, or a machine without a display): SDL_VIDEODRIVER=dummy, as gamebridge.json sets.
"""
import argparse
import io
import os
import sys
import threading
import time

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # stdout is the game's log
import pygame  # noqa: E402
import pygame._sdl2.touch  # noqa: E402  (pygame 2's finger queries)

# In your own game, copy kits/python/gamebridge.py next to game.py; this example uses it in place.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kits", "python"))
import gamebridge  # noqa: E402

FPS = 60
WIDTH, HEIGHT = 480, 320
GROUND = 270  # the frog's feet, in surface pixels
SPEED = 3  # pixels per simulated frame while a direction is held
JUMP_SPEED, GRAVITY = 7.0, 0.5
CATCH_DISTANCE = 22
FLY_SPOTS = [(60, 200), (400, 190), (240, 170), (130, 215), (330, 205), (20, 185), (450, 220)]
BUTTONS = {"start": pygame.Rect(180, 130, 120, 34), "options": pygame.Rect(180, 174, 120, 34)}
VOLUME = pygame.Rect(180, 228, 120, 8)
MUSIC = pygame.Rect(180, 246, 16, 16)
MENU_BUTTON = pygame.Rect(WIDTH - 78, 8, 70, 26)


class FrogHop:
    """The game state; every change happens on the game loop."""

    def __init__(self):
        self.screen, self.volume, self.music, self.run = "MenuScreen", 0.8, True, 0
        self.name, self.steer, self.target, self.last_click, self.last_tap = "", 0.0, None, None, None
        self.mouse, self.pad, self.fingers, self.last_fingers = [0, 0, False], False, [], None
        self.new_round()  # the round that Start begins waits behind the menu
        self.screen, self.run = "MenuScreen", 0

    def new_round(self):
        self.run += 1
        self.screen = "GameScreen"
        self.x, self.y, self.vy = WIDTH / 2.0, 0.0, 0.0
        self.score, self.jumps, self.next_spot, self.events = 0, 0, 0, []
        self.flies = []
        for _ in range(3):
            self.spawn_fly()

    def spawn_fly(self):
        n = self.next_spot
        self.next_spot += 1
        x, y = FLY_SPOTS[n % len(FLY_SPOTS)]
        self.flies.append({"id": n + 1, "x": x, "y": y})

    def jump(self):
        """Raises when it cannot: the kit turns it into the command's failed result, with these words."""
        if self.screen != "GameScreen":
            raise ValueError("no round is running (%s): start one first" % self.screen)
        if self.y != 0 or self.vy != 0:
            raise ValueError("the frog is in the air (jump again once it lands)")
        self.vy, self.jumps = JUMP_SPEED, self.jumps + 1
        self.events.append({"m": "jump:%d" % self.jumps})

    def step(self, held):
        """One simulated frame, with held(input) telling which inputs are down."""
        if self.screen != "GameScreen":
            return
        dx = (SPEED if held("right") else 0) - (SPEED if held("left") else 0) + SPEED * self.steer
        if self.target is not None:  # hopping to where the player clicked or tapped
            dx += max(-SPEED, min(SPEED, self.target - self.x))
            if abs(self.target - self.x) <= SPEED:
                self.target = None
        self.x = min(max(self.x + dx, 16.0), WIDTH - 16.0)
        if self.y > 0 or self.vy > 0:
            self.y, self.vy = max(self.y + self.vy, 0.0), self.vy - GRAVITY
            if self.y == 0:
                self.vy = 0.0
        fy = GROUND - 10 - self.y * 2  # the frog's mouth; a jump lifts it twice its height in pixels
        for fly in list(self.flies):
            if abs(fly["x"] - self.x) < CATCH_DISTANCE and abs(fly["y"] - fy) < CATCH_DISTANCE:
                self.flies.remove(fly)
                self.score += 1
                self.events.append({"m": "catch:fly#%d" % fly["id"]})
                self.spawn_fly()
        self.events = self.events[-20:]

    def snapshot(self):
        return {"ui": {"screen": self.screen}, "events": list(self.events),
                "game": {"run": self.run, "x": self.x, "y": self.y, "score": self.score, "jumps": self.jumps,
                         "flies": [dict(f) for f in self.flies], "volume": self.volume, "music": self.music,
                         "name": self.name, "steer": self.steer, "lastClick": self.last_click, "lastTap": self.last_tap,
                         "mouse": self.mouse, "pad": self.pad, "fingers": self.fingers,
                         "lastFingers": self.last_fingers}}

    def click(self, x, y, button):
        """A mouse button went down at x, y: presses what is there, or aims the frog's hop."""
        self.last_click = [x, y, button]
        if button != 1:
            return
        if self.screen == "MenuScreen" and BUTTONS["start"].collidepoint(x, y):
            return "start"
        if self.screen == "GameScreen" and MENU_BUTTON.collidepoint(x, y):
            self.screen = "MenuScreen"
        elif self.screen == "GameScreen":
            self.target = min(max(float(x), 16.0), WIDTH - 16.0)

    def type_text(self, text):
        """Typed text goes to the name the score is kept under (a high-score name, 12 at most)."""
        self.name = (self.name + text)[:12]

    def frog_rect(self):
        return pygame.Rect(int(self.x) - 16, int(GROUND - 24 - self.y * 2), 32, 24)


def polled_pad():
    """The first joystick's axis 0 and buttons 0 and 1, as pygame.joystick answers, or False."""
    if pygame.joystick.get_count() == 0:
        return False
    pad = pygame.joystick.Joystick(0)
    if pad.get_numaxes() < 1 or pad.get_numbuttons() < 2:
        return False
    return [pad.get_axis(0), bool(pad.get_button(0)), bool(pad.get_button(1))]


def polled_fingers():
    """Every finger down on every touch device, [[x, y], ...] in surface pixels."""
    touch, out = pygame._sdl2.touch, []
    for d in range(touch.get_num_devices()):
        device = touch.get_device(d)
        for i in range(touch.get_num_fingers(device)):
            f = touch.get_finger(device, i)
            out.append([round(f["x"] * WIDTH), round(f["y"] * HEIGHT)])
    return out


def ui_tree(game, start):
    """What the player sees, each item with its box on the surface (= screenshot pixels)."""
    def rect(r):
        return [r.x, r.y, r.w, r.h]

    def set_volume(v):
        game.volume = v

    def set_music(v):
        game.music = v

    def to_menu():
        game.screen = "MenuScreen"

    if game.screen == "MenuScreen":
        return {"screen": "MenuScreen", "nodes": [
            {"id": "title", "role": "heading", "name": "Frog Hop", "rect": [150, 60, 180, 40]},
            {"id": "menu", "role": "group", "name": "Main menu", "children": [
                {"id": "start", "role": "button", "name": "Start", "rect": rect(BUTTONS["start"]), "activate": start},
                {"id": "options", "role": "button", "name": "Options", "enabled": False, "rect": rect(BUTTONS["options"])},
                {"id": "volume", "role": "slider", "name": "Volume", "value": game.volume, "min": 0, "max": 1,
                 "rect": rect(VOLUME), "setValue": set_volume},
                {"id": "music", "role": "checkbox", "name": "Music", "checked": game.music, "rect": rect(MUSIC),
                 "setValue": set_music},
            ]}]}
    return {"screen": "GameScreen", "nodes": [
        {"id": "score", "role": "text", "name": "Score %d" % game.score, "rect": [8, 8, 120, 24]},
        {"id": "open-menu", "role": "button", "name": "Menu", "rect": rect(MENU_BUTTON), "activate": to_menu},
    ]}


def world_objects(game):
    """The frog and the flies, at their centres on the surface."""
    frog = game.frog_rect()
    return [{"id": "frog", "type": "player", "name": "Frog", "pos": [frog.centerx, frog.centery], "player": True}] + [
        {"id": "fly-%d" % f["id"], "type": "fly", "name": "Fly #%d" % f["id"], "pos": [f["x"], f["y"]],
         "tags": ["fly"], "player": True} for f in game.flies]


def draw(surface, game, font):
    surface.fill((150, 205, 235))
    pygame.draw.rect(surface, (70, 140, 70), (0, GROUND, WIDTH, HEIGHT - GROUND))
    pygame.draw.rect(surface, (60, 110, 170), (0, GROUND + 24, WIDTH, HEIGHT - GROUND - 24))
    if game.screen == "MenuScreen":
        surface.blit(font.render("Frog Hop", True, (20, 60, 20)), (190, 68))
        pygame.draw.rect(surface, (250, 200, 70), BUTTONS["start"], border_radius=6)
        surface.blit(font.render("Start", True, (30, 30, 30)), (BUTTONS["start"].x + 36, BUTTONS["start"].y + 6))
        pygame.draw.rect(surface, (140, 150, 160), BUTTONS["options"], width=2, border_radius=6)
        surface.blit(font.render("Options", True, (120, 130, 140)), (BUTTONS["options"].x + 22, BUTTONS["options"].y + 6))
        surface.blit(font.render("Volume", True, (30, 30, 30)), (VOLUME.x, VOLUME.y - 22))
        pygame.draw.rect(surface, (90, 100, 120), VOLUME)
        pygame.draw.rect(surface, (255, 255, 255), (VOLUME.x, VOLUME.y, int(VOLUME.w * game.volume), VOLUME.h))
        pygame.draw.rect(surface, (30, 30, 30), MUSIC, width=2)
        if game.music:
            pygame.draw.rect(surface, (30, 30, 30), MUSIC.inflate(-6, -6))
        surface.blit(font.render("Music", True, (30, 30, 30)), (MUSIC.right + 8, MUSIC.y - 4))
        return
    for f in game.flies:
        pygame.draw.circle(surface, (40, 40, 40), (f["x"], f["y"]), 4)
        pygame.draw.circle(surface, (230, 230, 255), (f["x"] - 4, f["y"] - 3), 3)
    pygame.draw.ellipse(surface, (60, 170, 60), game.frog_rect())
    surface.blit(font.render("Score %d" % game.score, True, (20, 40, 20)), (10, 8))
    if game.name:
        surface.blit(font.render(game.name, True, (20, 40, 20)), (140, 8))
    pygame.draw.rect(surface, (250, 200, 70), MENU_BUTTON, border_radius=5)
    surface.blit(font.render("Menu", True, (30, 30, 30)), (MENU_BUTTON.x + 10, MENU_BUTTON.y + 2))


MANIFEST = {"toolsets": [{"name": "play", "description": "Catch flies (hold left/right with the bridge's hold tool)", "tools": [
    {"name": "start", "description": "Start a new round (a new session epoch)", "args": []},
    {"name": "jump", "description": "Jump, if on the ground", "args": []},
    {"name": "teleport", "description": "Put the frog at x", "args": [
        {"name": "x", "type": "number", "description": "Surface x, 16-%d" % (WIDTH - 16), "required": True}]},
]}]}


def main():
    ap = argparse.ArgumentParser(description="Frog Hop, a pygame game on the game-bridge kit")
    ap.add_argument("--debug-port", type=gamebridge.debug_port, help="serve the game-bridge contract on 127.0.0.1:PORT")
    ap.add_argument("--frames", type=int, default=0, help="without a debug port: run this many frames, then exit")
    opts = ap.parse_args()
    pygame.display.init()  # no pygame.init(): the game makes no sound, so no audio device is opened
    pygame.font.init()
    pygame.joystick.init()  # its joystick query (polled_pad)
    surface_lock = threading.Lock()  # the HTTP thread copies the picture only between two draws
    screen = pygame.display.set_mode((WIDTH, HEIGHT))
    pygame.display.set_caption("Frog Hop")
    font = pygame.font.Font(None, 28)
    game = FrogHop()
    surface = None

    def start(_args=None):
        game.new_round()
        if surface:
            surface.new_epoch()

    def screenshot():
        with surface_lock:
            picture = screen.copy()
        out = io.BytesIO()
        pygame.image.save(picture, out, "frame.png")
        return out.getvalue()

    if opts.debug_port is not None:  # no flag, no HTTP surface
        def teleport_ok(args):
            if not 16 <= args.number("x") <= WIDTH - 16:
                return "x must be within 16-%d" % (WIDTH - 16)

        commands = {
            "start": start,
            "jump": lambda _a: game.jump(),
            "teleport": gamebridge.Command(lambda a: setattr(game, "x", a.number("x")), teleport_ok),
        }
        surface = gamebridge.GameSurface(
            opts.debug_port, "Frog Hop", "1.0.0", snapshot=game.snapshot, manifest=MANIFEST, commands=commands,
            inputs=["left", "right"], screenshot=screenshot, step_frames_per_tick=1000,  # frames read no wall clock
            axes=[{"name": "steer", "min": -1, "max": 1}], pointer=True, touch=True, text=True,
            on_input=gamebridge.pygame_events(pygame),  # the agent's inputs arrive as pygame events
            ui=lambda: ui_tree(game, start), world=lambda: world_objects(game))
        try:
            surface.listen()
            print("frog-hop: listening on 127.0.0.1:%d (pid %d)" % (surface.port, os.getpid()), flush=True)
        except OSError as e:  # whatever holds the port would be taken for this game: end instead
            print("frog-hop: %s; exiting" % e.strerror, file=sys.stderr, flush=True)
            return 1

    keys = {"left": False, "right": False}

    def held(name):
        return keys[name] or (surface.is_held(name) if surface else False)

    frames, running = 0, True
    while running and (surface.running if surface else frames < opts.frames):
        started = time.monotonic()
        for event in pygame.event.get():  # a real window's keys and clicks; none under the dummy driver
            if event.type == pygame.QUIT:
                running = False
            elif event.type in (pygame.KEYDOWN, pygame.KEYUP):
                down = event.type == pygame.KEYDOWN
                if event.key in (pygame.K_LEFT, pygame.K_RIGHT):
                    keys["left" if event.key == pygame.K_LEFT else "right"] = down
                elif down and event.key == pygame.K_SPACE and game.screen == "GameScreen" and game.y == 0:
                    game.jump()
                elif down and event.key == pygame.K_RETURN and game.screen == "MenuScreen":
                    start()
            elif event.type == pygame.MOUSEBUTTONDOWN and game.click(event.pos[0], event.pos[1], event.button) == "start":
                start()
            elif event.type == pygame.FINGERDOWN:  # a tap: x and y are fractions of the surface
                game.last_tap = [round(event.x * WIDTH), round(event.y * HEIGHT)]
                if game.screen == "GameScreen":
                    game.target = min(max(event.x * WIDTH, 16.0), WIDTH - 16.0)
            elif event.type == pygame.MOUSEWHEEL:  # a notch up is a tenth more volume
                game.volume = min(max(game.volume + event.y / 10.0, 0.0), 1.0)
            elif event.type == pygame.JOYAXISMOTION and event.axis == 0:
                game.steer = event.value
            elif event.type == pygame.TEXTINPUT:
                game.type_text(event.text)
        if surface:
            surface.tick(lambda: game.step(held))
        else:
            game.step(held)
        # pygame's own mouse, joystick and touch queries, which the kit makes follow the agent
        game.mouse = [*pygame.mouse.get_pos(), pygame.mouse.get_pressed()[0]]
        game.pad, game.fingers = polled_pad(), polled_fingers()
        if game.fingers:
            game.last_fingers = game.fingers
        with surface_lock:
            draw(screen, game, font)
            pygame.display.flip()
        frames += 1
        time.sleep(max(0.0, 1.0 / FPS - (time.monotonic() - started)))
    if surface:
        surface.close()
    pygame.quit()
    print("frog-hop: bye after %d frames" % frames, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
