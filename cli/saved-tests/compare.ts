/**
 * `game-bridge-mcp test --compare <configA> <configB> <file>`: the same steps on two builds side
 * by side, each on a game of its own, and the first step after which their states part: the
 * path and both values. The header's `ignore` paths are left out, and so are the counters that
 * differ between any two runs (the wall-clock `frame`, a held input's `leaseMsLeft`). A
 * frame-exact test's games are launched paused at simFrame 0; a game whose kit does not start
 * paused runs frames before the runner's first pause that are not under its control, so frames
 * count from each game's first pause: both are stepped the same frames from there, and
 * `simFrame` is compared as counted from there.
 */
import { relative, resolve } from 'node:path';
import { usageError } from '../../shared/errors.js';
import { firstDifference } from '../../shared/state-parting.js';
import { readTestFile } from '../../shared/test-file.js';
import { printableLines } from '../printable.js';
import { openDriver, type Driver } from './driver.js';
import { CLOCK_TOOLS, launchFor, placeInTime, stepText, type Game } from './replay.js';

const show = (v: unknown) => {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

export async function runCompare(configs: string[], paths: string[], _opts: unknown): Promise<number> {
  // yargs' array flag takes the test file too when it comes last
  if (configs.length === 3 && !paths.length) [configs, paths] = [configs.slice(0, 2), configs.slice(2)];
  if (configs.length !== 2 || paths.length !== 1)
    throw usageError(
      'test --compare takes two gamebridge.json files and one test file: --compare a.json b.json t.jsonl.',
    );
  const [ca, cb] = configs.map((c) => resolve(process.cwd(), c));
  const t = readTestFile(resolve(process.cwd(), paths[0]));
  const ignore = t.header.ignore;
  const drivers: Driver[] = [];
  const games: Game[] = [];
  // Test names, steps and the games' answers come from files and games: printed inert.
  const out = { write: (text: string) => process.stdout.write(printableLines(text)) };
  const t0 = Date.now();
  // Ctrl-C: stop at the next step; the games are stopped below, then the exit is 130
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write('Interrupted: stopping both games…\n');
  };
  process.on('SIGINT', onSigint);
  try {
    drivers.push(...(await Promise.all([openDriver(ca), openDriver(cb)])));
    games.push(...(await Promise.all(drivers.map((d) => launchFor(t, d)))));
    if (games[0].frameExact) {
      const paused = await Promise.all(games.map((g) => g.readSim()));
      games.forEach((g, k) => (g.offset = paused[k] - Math.min(...paused)));
    }
    const started = Date.now();
    const state = (g: Game) =>
      g.driver.game(g.port, 'get_state').then((r) => {
        const st = r.state as Record<string, unknown> | undefined;
        if (st && typeof st.simFrame === 'number') st.simFrame -= g.offset;
        return st as unknown;
      });
    let k = 0;
    for (const s of t.steps) {
      if (interrupted) return 130;
      if (s.kind !== 'do') continue;
      k++;
      await Promise.all(games.map((g) => placeInTime(g, s, started)));
      if (!(games[0].frameExact && CLOCK_TOOLS.has(s.name)))
        await Promise.all(
          games.map(async (g) => g.after(s.name, s.arguments, await g.driver.game(g.port, s.name, s.arguments))),
        );
      const [sa, sb] = await Promise.all(games.map(state));
      const d = firstDifference(sa, sb, ignore);
      if (d) {
        out.write(
          `✗ ${t.header.name}: the builds part after step ${k} (${relative(process.cwd(), t.file)}:${s.line}  ${stepText(s)})\n` +
            `    path: ${d.path}\n    A (${relative(process.cwd(), ca)}): ${show(d.a)}\n    B (${relative(process.cwd(), cb)}): ${show(d.b)}\n`,
        );
        return 1;
      }
    }
    out.write(
      `✓ ${t.header.name}: both builds agree after all ${k} steps (${((Date.now() - t0) / 1000).toFixed(1)}s)\n`,
    );
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await Promise.all(
      games.map((g) => g.driver.tool('stop_instance', { port: g.port, force: true }).catch(() => undefined)),
    );
    await Promise.all(drivers.map((d) => d.close()));
  }
}
