/**
 * The UI tools on a real kit's example (the Node kit's Crate Stack), through the real proxy +
 * daemon and the SDK client: its menu read as text with refs, a disabled option refused before
 * anything is sent, Start clicked and the game screen waited for, the volume slider set.
 */
import { cleanedAfterAll, connect, gameCall } from './helpers/mcp.js';
import { freePort } from './helpers/ports.js';
import { Reaper, startExampleGame, tempHome } from './helpers/procs.js';

const reaper = new Reaper();
const { homes, handles } = cleanedAfterAll();
afterAll(() => reaper.reap());

test("Crate Stack's menu: snapshot, a refused click, a click, a wait and a value", async () => {
  const home = tempHome('gb-ui-kit-');
  homes.push(home);
  const port = await freePort();
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  const h = await connect({ args: ['--no-scan'], env: { GAME_BRIDGE_HOME: home } });
  handles.push(h);

  const snap = await gameCall(h, port, 'snapshot');
  expect(snap.isError).toBe(false);
  expect(snap.text).toMatch(/^MenuScreen · ui revision \d+ · snapshot \d+/);
  expect(snap.text).toContain('- heading "Crate Stack" [ref=title]');
  expect(snap.text).toContain('  - button "Start" [ref=start]');
  expect(snap.text).toContain('  - button "Options" [ref=options] disabled');
  expect(snap.text).toMatch(/ {2}- slider "Volume" \[ref=volume\] value=[\d.]+/);

  const refused = await gameCall(h, port, 'click', { ref: 'options' });
  expect(refused.text).toMatch(/^BridgeUsageError: click: button "Options" \[ref=options\] is disabled/);
  const miss = await gameCall(h, port, 'click', { ref: 'strat' });
  expect(miss.text).toContain('Similar: button "Start" [ref=start]');

  const vol = await gameCall(h, port, 'set_value', { ref: 'volume', value: 0.3 });
  expect(vol.json).toMatchObject({ applied: true, node: { value: 0.3 } });
  const tooLoud = await gameCall(h, port, 'set_value', { ref: 'volume', value: 2 });
  expect(tooLoud.text).toMatch(/takes 0 to 1 .*2 is out of range, so nothing was sent/);

  const clicked = await gameCall(h, port, 'click', { ref: 'start' });
  expect(clicked.json).toMatchObject({ applied: true, confirmation: 'completedCommandId', screen: 'GameScreen' });
  const paused = await gameCall(h, port, 'wait_for_node', { role: 'button', name: 'Pause', state: 'enabled' });
  expect(paused.json).toMatchObject({ matched: true, node: { id: 'pause' } });
}, 60000);
