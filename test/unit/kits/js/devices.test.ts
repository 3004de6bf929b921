/**
 * The Node and web kits' pointer (kits/js/devices.ts): one mouse shared by every owner, as the
 * engine kits do it (test/kits/kit-inputs.test.ts): a button is down while any owner holds it,
 * the pointer's position is wherever it was last moved, and each owner lifts only its own.
 */
import { CommandArgs } from '../../../../kits/js/args.js';
import { PlayerDevices, type DeviceEvent } from '../../../../kits/js/devices.js';

const pointer = (d: PlayerDevices, owner: string, x: number, y: number, buttons: number) =>
  d.apply('input.pointer', new CommandArgs({ x: String(x), y: String(y), buttons: String(buttons) }), owner);

/** Owner a holds the left button, owner b moves the pointer and holds the right one. */
function twoOwners(): { d: PlayerDevices; events: DeviceEvent[] } {
  const events: DeviceEvent[] = [];
  const d = new PlayerDevices(
    { pointer: true },
    () => 0,
    (e) => events.push(e),
  );
  pointer(d, 'a', 10, 10, 1);
  pointer(d, 'b', 12, 10, 0);
  expect(d.pointer()).toEqual({ x: 12, y: 10, buttons: 1 });
  pointer(d, 'b', 12, 10, 2);
  return { d, events };
}

test("two owners' buttons are one mouse: down while either holds it", () => {
  expect(twoOwners().d.pointer().buttons).toBe(3);
});

test('each owner of the one mouse lifts only its own buttons', () => {
  const { d, events } = twoOwners();
  d.releaseAll('b');
  expect(d.pointer().buttons).toBe(1);
  pointer(d, 'a', 10, 10, 0);
  expect(d.pointer()).toEqual({ x: 10, y: 10, buttons: 0 });
  // The game saw each button go down once and come up once.
  expect(events.filter((e) => e.type !== 'pointermove').map((e) => [e.type, 'button' in e ? e.button : null])).toEqual([
    ['pointerdown', 0],
    ['pointerdown', 2],
    ['pointerup', 2],
    ['pointerup', 0],
  ]);
});
