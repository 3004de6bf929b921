/**
 * The Node and web kits' core (kits/js/core.ts) applying `input.click` on its ticks: the button
 * goes down on the tick that takes the command and up on the next, the command completes on the
 * tick of its last press, and a later command waits until the click has lifted, so order is kept.
 */
import { createSurfaceCore, type SurfaceCore } from '../../../../kits/js/core.js';
import type { DeviceEvent } from '../../../../kits/js/devices.js';

function game(): { core: SurfaceCore; seen: [number, string][] } {
  const seen: [number, string][] = [];
  const core: SurfaceCore = createSurfaceCore({
    name: 'Clicks',
    version: '1.0.0',
    pointer: true,
    clock: true,
    snapshot: () => ({}),
    log: () => undefined,
    onCloseCommand: () => undefined,
    onDeviceEvent: (e: DeviceEvent) => {
      if (e.type === 'pointerdown' || e.type === 'pointerup') seen.push([core.frame, e.type]);
    },
  });
  return { core, seen };
}

const send = (core: SurfaceCore, cmd: string, args: Record<string, string | number>) => {
  const q = new URLSearchParams({ cmd, ...Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])) });
  const a = core.answer(`/command?${q}`).body as { accepted: boolean; commandId?: number; error?: string };
  if (!a.accepted) throw new Error(a.error);
  return a.commandId!;
};

test('a click presses on the tick that takes it, completes there, and lifts on the next', () => {
  const { core, seen } = game();
  const id = send(core, 'input.click', { x: 5, y: 6, button: 1, count: 1, owner: 'a' });
  core.tick();
  expect(core.completedCommandId).toBe(id);
  expect(core.pointer()).toEqual({ x: 5, y: 6, buttons: 1 });
  core.tick();
  expect(core.pointer()).toEqual({ x: 5, y: 6, buttons: 0 });
  expect(seen).toEqual([
    [1, 'pointerdown'],
    [2, 'pointerup'],
  ]);
});

test('a double click is down, up, down, up on four ticks and completes on its second press', () => {
  const { core, seen } = game();
  const id = send(core, 'input.click', { x: 5, y: 6, button: 2, count: 2, owner: 'a' });
  const done: number[] = [];
  for (let i = 0; i < 4; i++) {
    core.tick();
    done.push(core.completedCommandId);
  }
  expect(done).toEqual([0, 0, id, id]);
  expect(seen.map(([f, t]) => `${f} ${t}`)).toEqual(['1 pointerdown', '2 pointerup', '3 pointerdown', '4 pointerup']);
});

test('a command sent behind a click is applied after its lift, on the same tick', () => {
  const { core, seen } = game();
  send(core, 'input.click', { x: 5, y: 6, button: 1, count: 1, owner: 'a' });
  const press = send(core, 'input.pointer', { x: 9, y: 9, buttons: 1, owner: 'a' });
  core.tick();
  expect(core.completedCommandId).toBe(press - 1);
  core.tick();
  expect(core.completedCommandId).toBe(press);
  expect(seen).toEqual([
    [1, 'pointerdown'],
    [2, 'pointerup'],
    [2, 'pointerdown'],
  ]);
});

test('a click on a paused clock still presses and lifts on the ticks, simulating nothing', () => {
  const { core, seen } = game();
  send(core, 'clock.pause', {});
  core.tick();
  send(core, 'input.click', { x: 5, y: 6, button: 1, count: 1, owner: 'a' });
  expect([core.tick(), core.tick()]).toEqual([0, 0]);
  expect(seen.map(([, t]) => t)).toEqual(['pointerdown', 'pointerup']);
});

test('a click with a button that is not one bit, or more than three clicks, is refused naming the range', () => {
  const { core } = game();
  expect(() => send(core, 'input.click', { x: 1, y: 1, button: 3, count: 1, owner: 'a' })).toThrow(
    /'button' must be 1 \(left\), 2 \(right\) or 4 \(middle\), got 3/,
  );
  expect(() => send(core, 'input.click', { x: 1, y: 1, button: 1, count: 4, owner: 'a' })).toThrow(/'count'.*1 to 3/);
});
