/**
 * A project's composites module is re-imported when it changes, and every version imported stays
 * in the daemon's memory (an ES module cannot be unloaded). So one daemon loads a bounded number
 * of versions of a file (GAME_BRIDGE_COMPOSITE_VERSIONS here: 2); the next change is refused
 * with the way out (restart the daemon), said to the agent, and a fresh daemon loads it.
 * Real game, real proxy and daemon, official SDK client.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, connect, gameCall, type McpHandle } from './helpers/mcp.js';
import { freeRange } from './helpers/ports.js';
import { writeProject } from './helpers/project.js';
import { Reaper, removeDir, startExampleGame, stopDaemon, tempHome } from './helpers/procs.js';

const reaper = new Reaper();
const home = tempHome();
const project = tempHome('gb-composites-cap-');
const env = { GAME_BRIDGE_HOME: home, GAME_BRIDGE_COMPOSITE_VERSIONS: '2' };
const moduleFile = join(project, 'composites.mjs');
const handles: McpHandle[] = [];
let port: number;

/** Version `v` of the module: one composite that says which version answered. */
function writeModule(v: number): void {
  writeFileSync(
    moduleFile,
    `export default [{ name: 'which', description: 'Says its version.', run: () => ({ v: ${v} }) }];\n`,
  );
  const t = new Date(Date.now() + v * 2000); // a distinct mtime even on a coarse clock
  utimesSync(moduleFile, t, t);
}

async function open(): Promise<McpHandle> {
  const h = await connect({ args: ['--port', String(port), '--no-scan'], env, cwd: project });
  handles.push(h);
  reaper.track(h.pid);
  return h;
}

beforeAll(async () => {
  mkdirSync(project, { recursive: true });
  [port] = await freeRange(1);
  await startExampleGame(reaper, port, [], { GAME_BRIDGE_HOME: home });
  writeProject(project, { ports: [port], extra: { composites: './composites.mjs' } });
}, 60000);

afterAll(async () => {
  for (const h of handles) await h.close();
  stopDaemon(home);
  await reaper.reap();
  removeDir(home);
  removeDir(project);
});

describe('a module changed past the cap', () => {
  test('is not loaded: the agent is told to restart the daemon', async () => {
    const mcp = await open();
    writeModule(1);
    expect((await gameCall(mcp, port, 'which')).json).toMatchObject({ via: 'composite', v: 1 });
    writeModule(2);
    expect((await gameCall(mcp, port, 'which')).json).toMatchObject({ via: 'composite', v: 2 });

    writeModule(3);
    const refused = await gameCall(mcp, port, 'which');
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^CommandRejected: The game on port \d+ does not know 'which'/);
    expect(refused.text).toContain('this daemon has already loaded 2 versions of it');
    expect(refused.text).toMatch(/Restart the daemon to load the new version: `.* stop`/);
    const listed = await call(mcp, 'list_toolsets', { port });
    expect(listed.json.warnings.join('\n')).toMatch(/The composites module .*composites\.mjs changed, but this daemon/);
    await mcp.close();
  }, 120000);

  test('is loaded by a fresh daemon', async () => {
    stopDaemon(home);
    const fresh = await open();
    expect((await gameCall(fresh, port, 'which')).json).toMatchObject({ via: 'composite', v: 3 });
  }, 120000);
});
