/**
 * The Python kit (kits/python/gamebridge.py) beyond the conformance suite (conformance.test.ts
 * runs the contract on its examples): the ways it refuses to start, signals, a keep-alive
 * response in one send, and the kit working when copied alone next to a game.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.js';
import { ROOT, Reaper, collectOutput, exitCode, pythonExe, removeDir, tempHome, waitFor } from '../helpers/procs.js';
import { PYTHON_READY_MS, applied, getJson, spawnKitGame, startKitGame } from './kit-game.js';

/** Runs Python lines with the kit imported (json and sys too) and parses what they print as JSON. */
function inProcess(lines: string[]): any {
  const prologue = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(join(ROOT, 'kits', 'python'))})`,
    'import gamebridge',
  ];
  return JSON.parse(execFileSync(pythonExe(), ['-c', [...prologue, ...lines].join('\n')], { encoding: 'utf8' }));
}

describe('Python kit: start-up, signals, copying', () => {
  const reaper = new Reaper();
  const dirs: string[] = [];
  const dir = () => {
    const d = tempHome('gb-pykit-');
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    await reaper.reap();
    dirs.forEach(removeDir);
  });

  test('a bad debug port is refused with a clear message and exit code 2', async () => {
    for (const bad of ['abc', '70000']) {
      const { child, output } = spawnKitGame(reaper, 'python', bad, dir());
      expect(await exitCode(child)).toBe(2);
      expect(output.text).toMatch(/argument --debug-port: must be a port number \(1-65535\), got/);
    }
  });

  test('SIGTERM ends the game loop through its normal exit: exit 0, registry entry removed', async () => {
    const home = dir();
    const g = await startKitGame(reaper, 'python', await freePort(), home);
    const entry = join(home, 'instances', `${g.child.pid}.json`);
    // The kit serves first, then registers: the entry may come a moment after /health answers.
    await waitFor('its registry entry', () => existsSync(entry), 5000);
    const code = exitCode(g.child);
    g.child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(g.output.text).toMatch(/walker: bye after \d+ frames/);
    expect(existsSync(entry)).toBe(false);
  });

  test('without --debug-port there is no HTTP surface and no registry entry', () => {
    const home = dir();
    const out = execFileSync(pythonExe(), ['game.py', '--frames', '5'], {
      cwd: join(ROOT, 'examples', 'python-game'),
      env: { ...process.env, GAME_BRIDGE_HOME: home },
      encoding: 'utf8',
    });
    expect(out).toBe('walker: bye after 5 frames\n');
    expect(existsSync(join(home, 'instances'))).toBe(false);
  });

  test('a keep-alive response leaves in one send on a TCP_NODELAY socket (no Nagle stall behind a split write)', () => {
    // Headers and body in two writes on a persistent connection make Nagle hold the body until
    // the client's delayed ACK: every poll of the bridge would wait for it. Counted, not timed.
    const sends = inProcess([
      'import http.client, socket, threading',
      'sends = []',
      'def spy(name):',
      '    real = getattr(socket.socket, name)',
      '    def send(self, data, *rest):',
      '        if threading.current_thread() is not threading.main_thread():',
      '            sends.append(self.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0)',
      '        return real(self, data, *rest)',
      '    setattr(socket.socket, name, send)',
      'spy("send"); spy("sendall")',
      'surface = gamebridge.GameSurface(0, "T", "0", snapshot=lambda: {"game": {}}, handle_signals=False, register=False)',
      'surface.listen()',
      'conn = http.client.HTTPConnection("127.0.0.1", surface.port)',
      'for path in ["/health", "/state", "/command?cmd=nope", "/health"]:',
      '    conn.request("GET", path)',
      '    conn.getresponse().read()',
      'surface.close()',
      'print(json.dumps(sends))',
    ]);
    expect(sends).toEqual([true, true, true, true]); // four responses, one send each, no Nagle
  });

  test('trees and results in-process: hidden through a parent, choices, checkboxes, raised errors, the last 32, once a frame', () => {
    const out = inProcess([
      'g = {"level": "Easy", "sound": True, "open": False}',
      'def boom(_a): raise RuntimeError("the crate fell through the floor")',
      'ui = lambda: {"screen": "Menu", "nodes": [',
      '    {"id": "level", "role": "combobox", "name": "Level", "value": g["level"], "setValue": lambda v: g.update(level=v),',
      '     "children": [{"id": "e", "role": "option", "name": "Easy"}, {"id": "h", "role": "option", "name": "Hard"}]},',
      '    {"id": "sound", "role": "checkbox", "name": "Sound", "checked": g["sound"], "setValue": lambda v: g.update(sound=v)},',
      '    {"id": "panel", "role": "dialog", "name": "Panel", "visible": g["open"], "children": [',
      '        {"id": "ok", "role": "button", "name": "OK", "activate": lambda: None}]}]}',
      's = gamebridge.GameSurface(0, "T", "0", snapshot=lambda: {}, commands={"boom": boom}, ui=ui, handle_signals=False, register=False, log=lambda l: None)',
      'def run(cmd, **args):',
      '    r = s.enqueue(cmd, {k: str(v) for k, v in args.items()})',
      '    s.tick()',
      '    return [x for x in s.state()["commandResults"] if x["id"] == r["commandId"]][0]',
      'out = {"hidden": run("ui.activate", id="ok"), "option": run("ui.setValue", id="level", value="Hard"),',
      '       "noOption": run("ui.setValue", id="level", value="Nightmare"), "check": run("ui.setValue", id="sound", value="false"),',
      '       "badCheck": run("ui.setValue", id="sound", value="maybe"), "boom": run("boom"), "g": dict(g)}',
      'a = s.ui(); b = s.ui(); s.tick(); c = s.ui()',
      'out["sequence"] = [a["frameSequence"], b["frameSequence"], c["frameSequence"], a["revision"], c["revision"]]',
      'out["tree"] = a["nodes"][2]',
      'for _ in range(40): s.enqueue("boom", {})',
      's.tick()',
      'res = s.state()["commandResults"]',
      'out["kept"] = [len(res), res[0]["id"], res[-1]["id"]]',
      'out["health"] = s.health()["capabilities"]',
      'print(json.dumps(out))',
    ]);
    expect(out.hidden).toEqual({ id: 1, ok: false, error: "'OK' is hidden" });
    expect(out.option).toEqual({ id: 2, ok: true });
    expect(out.noOption).toEqual({
      id: 3,
      ok: false,
      error: "'Level' has no option 'Nightmare' (options: Easy, Hard)",
    });
    expect(out.check).toEqual({ id: 4, ok: true });
    expect(out.badCheck).toEqual({ id: 5, ok: false, error: "'Sound' takes true or false, got 'maybe'" });
    expect(out.boom).toEqual({ id: 6, ok: false, error: 'the crate fell through the floor' });
    expect(out.g).toEqual({ level: 'Hard', sound: false, open: false });
    expect(out.sequence).toEqual([1, 1, 2, 1, 1]); // once a frame; content unchanged, revision unchanged
    expect(out.tree).toEqual({
      id: 'panel',
      role: 'dialog',
      name: 'Panel',
      visible: false,
      children: [{ id: 'ok', role: 'button', name: 'OK' }],
    });
    expect(out.kept).toEqual([32, 15, 46]);
    expect(out.health).toEqual(['clock', 'ui']);
  });

  test('step_frames_per_tick lets one tick run many frames of a step, each through simulate, to the same frame count', () => {
    const out = inProcess([
      'def run(batch):',
      '    n = [0]',
      '    def simulate(): n[0] += 1',
      '    s = gamebridge.GameSurface(0, "T", "0", snapshot=lambda: {}, handle_signals=False, register=False, log=lambda l: None, step_frames_per_tick=batch)',
      '    s.enqueue("clock.step", {"frames": "2500"})',
      '    ticks = [s.tick(simulate) for _ in range(4)]',
      '    st = s.state()',
      '    return {"ticks": ticks, "simulated": n[0], "simFrame": st["simFrame"], "clock": st["clock"], "done": st["completedCommandId"]}',
      'print(json.dumps({"batch": run(1000), "one": run(1), "bad": run(0)}))',
    ]);
    expect(out.batch).toEqual({
      ticks: [1000, 1000, 500, 0],
      simulated: 2500,
      simFrame: 2500,
      clock: { paused: true, stepFramesLeft: 0 },
      done: 1,
    });
    // the default, and a value that is not a whole number from 1: one frame a tick
    expect(out.one).toMatchObject({ ticks: [1, 1, 1, 1], simulated: 4, clock: { stepFramesLeft: 2496 }, done: 0 });
    expect(out.bad).toMatchObject({ ticks: [1, 1, 1, 1], simulated: 4 });
  });

  test("pygame.mouse follows the one mouse: the agent's pointer until the real mouse moves, a button down on either", () => {
    const out = inProcess([
      'import types',
      'real = {"pos": (5, 5), "pressed": (False, False, False)}',
      'posted = []',
      'mouse = types.SimpleNamespace(get_pos=lambda: real["pos"], get_pressed=lambda num_buttons=3: real["pressed"])',
      'pg = types.SimpleNamespace(mouse=mouse, event=types.SimpleNamespace(post=posted.append, Event=lambda kind, **f: kind),',
      '    MOUSEMOTION=1, MOUSEBUTTONDOWN=2, MOUSEBUTTONUP=3)',
      's = gamebridge.GameSurface(0, "T", "0", snapshot=lambda: {}, handle_signals=False, register=False, log=lambda l: None,',
      '    pointer=True, on_input=gamebridge.pygame_events(pg))',
      'def seen(): return [list(pg.mouse.get_pos()), list(pg.mouse.get_pressed())]',
      'out = {"before": seen()}',
      's.enqueue("input.pointer", {"x": "40", "y": "30", "buttons": "2", "owner": "a"}); s.tick(lambda: None)',
      'out["agent"] = seen()',
      'real["pressed"] = (True, False, False)',
      'out["both"] = seen()',
      'real["pos"], real["pressed"] = (6, 5), (False, False, False)',
      'out["realMoved"] = seen()',
      'out["realFunctions"] = [gamebridge.real_mouse["get_pos"](), posted]',
      'print(json.dumps(out))',
    ]);
    expect(out.before).toEqual([
      [5, 5],
      [false, false, false],
    ]);
    expect(out.agent).toEqual([
      [40, 30],
      [false, false, true],
    ]);
    expect(out.both).toEqual([
      [40, 30],
      [true, false, true],
    ]);
    // the real mouse moved: the position is its again; the agent's right button is still held
    expect(out.realMoved).toEqual([
      [6, 5],
      [false, false, true],
    ]);
    expect(out.realFunctions).toEqual([
      [6, 5],
      [1, 2],
    ]);
  });

  test("pygame.joystick makes the bridge's joystick, announced once, and pygame._sdl2.touch lists the agent's fingers, after the real ones", () => {
    const out = inProcess([
      'import types',
      'class error(Exception): pass',
      'posted = []',
      'real_pad = object()',
      'joystick = types.SimpleNamespace(get_count=lambda: 1, Joystick=lambda i: real_pad)',
      'touch = types.SimpleNamespace(get_num_devices=lambda: 1, get_device=lambda i: 77, get_num_fingers=lambda t: 2,',
      '    get_finger=lambda t, i: {"id": i, "x": 0.0, "y": 0.0, "pressure": 0.5})',
      'mouse = types.SimpleNamespace(get_pos=lambda: (0, 0), get_pressed=lambda num_buttons=3: (False, False, False))',
      'screen = types.SimpleNamespace(get_size=lambda: (200, 100))',
      'pg = types.SimpleNamespace(mouse=mouse, joystick=joystick, _sdl2=types.SimpleNamespace(touch=touch), error=error,',
      '    display=types.SimpleNamespace(get_surface=lambda: screen),',
      '    event=types.SimpleNamespace(post=posted.append, Event=lambda kind, **f: [kind, f.get("instance_id", f.get("device_index"))]),',
      '    JOYAXISMOTION=7, FINGERDOWN=8, FINGERMOTION=9, FINGERUP=10, JOYDEVICEADDED=11)',
      's = gamebridge.GameSurface(0, "T", "0", snapshot=lambda: {}, handle_signals=False, register=False, log=lambda l: None,',
      '    inputs=["left", "fire"], touch=True, axes=[{"name": "x", "min": -1, "max": 1}, {"name": "t", "min": 0, "max": 1}],',
      '    on_input=gamebridge.pygame_events(pg))',
      's.enqueue("input.axis", {"input": "t", "value": "0.5", "owner": "a", "leaseMs": "60000"})',
      's.enqueue("input.hold", {"input": "fire", "owner": "a", "leaseMs": "60000"})',
      's.enqueue("input.touch", {"id": "4", "x": "50", "y": "25", "phase": "down", "owner": "a"})',
      's.tick(lambda: None)',
      'pad = pg.joystick.Joystick(1)',
      'out = {"count": pg.joystick.get_count(), "real": pg.joystick.Joystick(0) is real_pad,',
      '    "pad": [pad.get_id(), pad.get_instance_id(), pad.get_numaxes(), pad.get_axis(0), pad.get_axis(1),',
      '            pad.get_numbuttons(), pad.get_button(0), pad.get_button(1), pad.get_name()],',
      '    "posted": [e for e in posted if e[0] in (7, 11)],',
      '    "devices": [pg._sdl2.touch.get_num_devices(), pg._sdl2.touch.get_device(0), pg._sdl2.touch.get_device(1)],',
      '    "fingers": [pg._sdl2.touch.get_num_fingers(77), pg._sdl2.touch.get_num_fingers(0), pg._sdl2.touch.get_finger(0, 0)]}',
      's.enqueue("input.releaseAll", {"owner": "a"}); s.tick(lambda: None)',
      'out["after"] = [pad.get_axis(1), pad.get_button(1), pg._sdl2.touch.get_num_fingers(0)]',
      'print(json.dumps(out))',
    ]);
    // one real joystick and one real touch device: the bridge's come after them
    expect(out.count).toBe(2);
    expect(out.real).toBe(true);
    expect(out.pad).toEqual([1, 1, 2, 0, 0.5, 2, 0, 1, 'game-bridge']);
    expect(out.posted).toEqual([
      [11, 1],
      [7, 1],
    ]); // the joystick announced with the first input, then its axis event, both naming it
    expect(out.devices).toEqual([2, 77, 0]);
    expect(out.fingers).toEqual([2, 1, { id: 4, x: 0.25, y: 0.25, pressure: 1 }]);
    expect(out.after).toEqual([0, 0, 0]);
  });

  test('the kit is one file: copied next to a tiny game, it serves the contract', async () => {
    const d = dir();
    copyFileSync(join(ROOT, 'kits', 'python', 'gamebridge.py'), join(d, 'gamebridge.py'));
    writeFileSync(
      join(d, 'tiny.py'),
      [
        'import sys, time, gamebridge',
        'score = [0]',
        'def add(a): score[0] += int(a.number("n"))',
        'surface = gamebridge.GameSurface(int(sys.argv[1]), "Tiny", "0.1.0", snapshot=lambda: {"game": {"score": score[0]}}, commands={"add": add}, clock=False)',
        'surface.listen()',
        'while surface.running:',
        '    surface.tick()',
        '    time.sleep(1 / 60)',
        'surface.close()',
      ].join('\n'),
    );
    const port = await freePort();
    const child = reaper.spawn(pythonExe(), ['tiny.py', String(port)], {
      cwd: d,
      env: { ...process.env, GAME_BRIDGE_HOME: d },
    });
    collectOutput(child);
    await waitFor('tiny game', async () => (await getJson(port, '/health')).ok, PYTHON_READY_MS);
    expect(await getJson(port, '/health')).toMatchObject({ ok: true, capabilities: [] });
    expect((await applied(port, 'add', { n: 3 })).game.score).toBe(3);
    const refused = await getJson(port, '/command?cmd=input.hold&input=x');
    expect(refused).toMatchObject({ accepted: false, known: ['add', 'close', 'frames.stall'] }); // no capability: no input or clock commands
    expect((await fetch(`http://127.0.0.1:${port}/tools`)).status).toBe(404);
  });
});
