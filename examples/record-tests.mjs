#!/usr/bin/env node
/**
 * Records the example games' saved tests (gamebridge-tests/ beside each example) the way an agent does:
 * the official MCP SDK client on this package's proxy and daemon, playing the game it launched,
 * checking what it found with assert, and saving with save_test. Run after `npm run build`:
 *   node examples/record-tests.mjs            (both games)
 *   node examples/record-tests.mjs crate-stack
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROXY = join(ROOT, 'dist', 'proxy', 'main.js');

/** One session on one example: launch, play, save each scenario (a fresh launch each). */
async function record(project, scenarios) {
  // a browser example plays from its laid-out copy under dist/ (examples/web-build.ts); its tests are kept in the source
  const web = project === 'phaser-game';
  const cwd = join(ROOT, ...(web ? ['dist', 'examples', project] : ['examples', project]));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [PROXY],
    cwd,
    env: Object.fromEntries(Object.entries(process.env).filter(([, v]) => typeof v === 'string')),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'record-tests', version: '1' });
  await client.connect(transport);
  const tool = async (name, args = {}) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 120000 });
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${r.content[0].text}`);
    return r.structuredContent;
  };
  try {
    for (const [name, play] of Object.entries(scenarios)) {
      const { port } = await tool('launch_instance');
      const g = (n, a = {}) => tool('call_tool', { port, name: n, arguments: a });
      const state = async (path) => (await g('get_state', { path })).value;
      await g('bridge.pause');
      await play(g, state);
      const saved = await tool('call_tool', { port, name: 'save_test', arguments: { name, overwrite: true } });
      if (web) {
        mkdirSync(join(ROOT, 'examples', project, 'gamebridge-tests'), { recursive: true });
        copyFileSync(saved.path, join(ROOT, 'examples', project, 'gamebridge-tests', `${name}.jsonl`));
      }
      process.stdout.write(`${project}: ${saved.summary}\n`);
      await tool('stop_instance', { port });
    }
  } finally {
    await client.close();
  }
}

const GAMES = {
  'crate-stack': {
    'first-drop': async (g, state) => {
      await g('start');
      await g('assert', { path: 'ui.screen', equals: 'GameScreen' });
      await g('press', { input: 'right', frames: 24 });
      await g('assert', { path: 'game.dropperX', equals: await state('game.dropperX') });
      await g('drop_here');
      await g('step', { frames: 120, until: { path: 'game.score', gt: 0 } });
      await g('assert', { path: 'game.score', equals: await state('game.score') });
      await g('assert', { path: 'game.crates', equals: await state('game.crates') });
      await g('screenshot');
    },
    'stack-three': async (g, state) => {
      await g('start');
      for (const x of [30, 60, 45]) {
        await g('drop', { x });
        await g('step', { frames: 60 });
      }
      await g('assert', { path: 'game.crates', equals: await state('game.crates') });
      await g('assert', { path: 'game.height', gte: 1 });
      await g('assert', { path: 'game.score', equals: await state('game.score') });
    },
  },
  'phaser-game': {
    'catch-left': async (g, state) => {
      await g('start');
      await g('press', { input: 'left', frames: 20 });
      await g('step', { frames: 30 });
      await g('assert', { path: 'game.basketX', equals: await state('game.basketX') });
      await g('assert', { path: 'game.stars', equals: await state('game.stars') });
      await g('assert', { path: 'game.score', equals: await state('game.score') });
    },
  },
};

for (const project of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(GAMES))
  await record(project, GAMES[project]);
