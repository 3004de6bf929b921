/**
 * The CI recipes in examples/ci/ (docs/TESTS.md, "Sharding in CI") cannot run here, so what can
 * go wrong in them is checked: every `game-bridge-mcp` command parses with the CLI's own yargs
 * declarations (its subcommand and flags exist, its values are allowed), the shards cover 1..n,
 * the merge job reads the folder the shard jobs upload, and the runtimes are the ones .ci/run
 * installs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import yargs, { type Arguments } from 'yargs';
import { SUBCOMMANDS } from '../../../cli/cli.js';
import { ROOT } from '../../helpers/procs.js';

type Yaml = Record<string, any>;

const read = (name: string): Yaml => parse(readFileSync(join(ROOT, 'examples', 'ci', name), 'utf8'));

/** A command line's arguments as the CLI parses them (throws on what the CLI refuses). */
function parseCli(line: string): Arguments {
  const m = /^npx game-bridge-mcp (.*)$/.exec(line.trim());
  if (!m) throw new Error(`not a game-bridge-mcp command: ${line}`);
  // plain words only, so splitting on spaces is what a shell does
  expect(m[1]).toMatch(/^[\w./ /-]+$/);
  const argv = m[1].split(/\s+/);
  let parsed: Arguments | undefined;
  let cli = yargs(argv)
    .strict()
    .exitProcess(false)
    .fail((msg, err) => {
      throw err ?? new Error(`${line}: ${msg}`);
    });
  for (const c of SUBCOMMANDS)
    cli = cli.command(
      c.command,
      false,
      (y) => c.builder(y.strict()),
      (a) => void (parsed = a),
    );
  cli.parse();
  if (!parsed) throw new Error(`${line}: no subcommand ran`);
  return parsed;
}

/** The lines of a `run:` or `script:` that call game-bridge-mcp. */
const commandsIn = (lines: unknown[]) =>
  lines.flatMap((l) => String(l).split('\n')).filter((l) => l.includes('game-bridge-mcp'));

/** The system packages .ci/run installs when they are missing. */
function ciPackages(): string[] {
  const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const one = [...run.matchAll(/missing\+=\(([\w.-]+)\)/g)].map((m) => m[1]);
  const loops = [...run.matchAll(/for pkg in ([\w. -]+);/g)].flatMap((m) => m[1].trim().split(/\s+/));
  return [...one, ...loops];
}

/** The packages the `apt-get install` among these commands installs. */
const installed = (commands: string[]) =>
  commands.flatMap((c) => {
    const m = /apt-get install -y -qq ([\w. -]+)/.exec(c);
    return m ? m[1].trim().split(/\s+/) : [];
  });

test('the GitHub Actions recipe runs each of its shards once, with flags the CLI has, as blobs', () => {
  const wf = read('github-actions.yml');
  const shards: number[] = wf.jobs.shard.strategy.matrix.shard;
  expect(shards).toEqual(Array.from({ length: shards.length }, (_, k) => k + 1));
  const steps: Yaml[] = wf.jobs.shard.steps;
  const [line] = commandsIn(steps.filter((s) => s.run).map((s) => s.run));
  for (const i of shards) {
    const a = parseCli(line.replaceAll('${{ matrix.shard }}', String(i)));
    expect(a._).toEqual(['test']);
    expect(a.shard).toBe(`${i}/${shards.length}`);
    expect(a.reporter).toBe('blob');
  }
  expect(installed(steps.map((s) => String(s.run ?? ''))).sort()).toEqual(ciPackages().sort());
});

test('the GitHub Actions merge job reads the blobs the shards upload and uploads the report it writes', () => {
  const wf = read('github-actions.yml');
  const shardSteps: Yaml[] = wf.jobs.shard.steps;
  const blobDir = parseCli(
    commandsIn(shardSteps.filter((s) => s.run).map((s) => s.run))[0].replaceAll('${{ matrix.shard }}', '1'),
  ).output;
  const upload = shardSteps.find((s) => String(s.uses).startsWith('actions/upload-artifact@'))!;
  expect(upload.with.path).toBe(blobDir);
  expect(upload.if).toMatch(/!cancelled\(\)|always\(\)/);

  const merge = wf.jobs.merge;
  expect(merge.needs).toBe('shard');
  expect(merge.if).toMatch(/!cancelled\(\)|always\(\)/);
  const download = (merge.steps as Yaml[]).find((s) => String(s.uses).startsWith('actions/download-artifact@'))!;
  // every shard's artifact matches the pattern, and lands in one folder
  const glob = new RegExp(
    `^${String(download.with.pattern)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  for (const i of wf.jobs.shard.strategy.matrix.shard)
    expect(String(upload.with.name).replaceAll('${{ matrix.shard }}', String(i))).toMatch(glob);
  expect(download.with['merge-multiple']).toBe(true);
  const merges = commandsIn((merge.steps as Yaml[]).filter((s) => s.run).map((s) => s.run)).map(parseCli);
  expect(merges.map((a) => a.reporter)).toEqual(['html', 'junit']);
  for (const a of merges) {
    expect(a._).toEqual(['merge-reports']);
    expect(a.blobs).toEqual([download.with.path]);
  }
  const report = (merge.steps as Yaml[]).filter((s) => String(s.uses).startsWith('actions/upload-artifact@')).at(-1)!;
  expect(report.with.path).toBe(merges[0].output);
  expect(String(merges[1].output).startsWith(`${report.with.path}/`)).toBe(true);
});

/** The GitLab shard job's blob folder, as its command for shard i of n writes it. */
function gitlabShards(): { shard: Yaml; runs: Array<Arguments>; blobDir: string } {
  const shard = read('gitlab-ci.yml')['game-tests'];
  const n: number = shard.parallel;
  const [line] = commandsIn(shard.script);
  const runs = Array.from({ length: n }, (_, k) =>
    parseCli(line.replaceAll('${CI_NODE_INDEX}', String(k + 1)).replaceAll('${CI_NODE_TOTAL}', String(n))),
  );
  return { shard, runs, blobDir: String(runs.at(-1)?.output) };
}

test('the GitLab CI recipe runs each of its parallel shards once, as blobs', () => {
  const { shard, runs, blobDir } = gitlabShards();
  runs.forEach((a, k) => {
    expect(a._).toEqual(['test']);
    expect(a.shard).toBe(`${k + 1}/${runs.length}`);
    expect(a.reporter).toBe('blob');
    expect(String(a.output)).toBe(blobDir);
  });
  expect(shard.artifacts.when).toBe('always');
  expect(shard.artifacts.paths.map((p: string) => p.replace(/\/$/, ''))).toContain(blobDir);
  expect(installed(shard.before_script).sort()).toEqual(ciPackages().sort());
});

test('the GitLab CI merge job merges the blobs the shards keep', () => {
  const ci = read('gitlab-ci.yml');
  const { shard, blobDir } = gitlabShards();
  const merge = ci['merge-reports'];
  expect(ci.stages.indexOf(merge.stage)).toBeGreaterThan(ci.stages.indexOf(shard.stage));
  expect(merge.needs).toEqual([{ job: 'game-tests', artifacts: true }]);
  expect(merge.when).toBe('always');
  const merges = commandsIn(merge.script).map(parseCli);
  expect(merges.map((a) => a.reporter)).toEqual(['html', 'junit']);
  for (const a of merges) {
    expect(a._).toEqual(['merge-reports']);
    expect(a.blobs).toEqual([blobDir]);
  }
  expect(merge.artifacts.paths.map((p: string) => p.replace(/\/$/, ''))).toContain(merges[0].output);
  expect(merge.artifacts.reports.junit).toBe(merges[1].output);
});

test('a command with a flag the CLI does not have is caught by the check', () => {
  expect(() => parseCli('npx game-bridge-mcp merge-reports all-blobs --reporters html')).toThrow(/Unknown argument/);
  expect(() => parseCli('npx game-bridge-mcp test --reporter blobs')).toThrow(/Invalid values/);
});
