#!/usr/bin/env node
/**
 * `npm run bench`: the measurements of docs/PERFORMANCE.md, each beside its reference in the same
 * run. Prints a table, writes bench/results.json. Not a test: nothing here fails on a figure.
 *
 * Env: BENCH_QUICK=1 (smoke run, small counts), BENCH_ONLY=latency,startup,... (a subset),
 * BENCH_CALLS, BENCH_RUNS, BENCH_COMMANDS, BENCH_CLIENT_CALLS (override the counts),
 * BENCH_OUT (results path; default bench/results.json in the repo).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { DIST, log, median, Reaper, round } from './harness.js';
import { measureConfirm } from './confirm.js';
import { measureDashboard } from './dashboard.js';
import { measureDiscovery } from './discovery.js';
import { measureHttp } from './http.js';
import { measureLatency } from './latency.js';
import { measureMemory } from './memory.js';
import { measureReconnect } from './reconnect.js';
import { bareNode, measureStartup } from './startup.js';
import { measureThroughput } from './throughput.js';
import { measureConcurrency } from './concurrency.js';
import { measurePlay } from './play.js';
import { measureInputs } from './inputs.js';
import { measureKits } from './kits.js';
import { measureTrees } from './trees.js';
import { measureWeb } from './web.js';
import { measurePeers } from './peers.js';
import { measureSavedTests } from './saved-tests.js';
import { measureMoment } from './moment.js';
import { measureTraces } from './traces.js';
import { measureMergeReports } from './merge-reports.js';
import { measureResources } from './resources.js';
import { measureSkills } from './skills.js';
import { measureConsoleFlood } from './console-flood.js';
import { measureFilmstrip } from './filmstrip.js';
import { measurePageClock } from './page-clock.js';
import { measureCapture } from './capture.js';
import type { BenchConfig, Measurement, Row } from './types.js';

const env = process.env;
const quick = env.BENCH_QUICK === '1';
const num = (name: string, full: number, small: number) => Number(env[name]) || (quick ? small : full);

const cfg: BenchConfig = {
  quick,
  latencyCalls: num('BENCH_CALLS', 2000, 200),
  latencyBlock: 100,
  runs: num('BENCH_RUNS', 10, 3),
  discoveryCalls: quick ? 5 : 15,
  discoveryGames: 10,
  discoveryRange: 1000,
  commands: num('BENCH_COMMANDS', 150, 20),
  clients: 10,
  callsPerClient: num('BENCH_CLIENT_CALLS', 1000, 100),
  memoryGames: quick ? 4 : 20,
};

const MEASUREMENTS: Record<string, (r: Reaper, c: BenchConfig) => Promise<Measurement>> = {
  latency: measureLatency,
  startup: measureStartup,
  reconnect: measureReconnect,
  discovery: measureDiscovery,
  confirm: measureConfirm,
  throughput: measureThroughput,
  memory: measureMemory,
  http: measureHttp,
  dashboard: measureDashboard,
  concurrency: measureConcurrency,
  web: measureWeb,
  peers: measurePeers,
  play: measurePlay,
  inputs: measureInputs,
  kits: measureKits,
  trees: measureTrees,
  'saved-tests': measureSavedTests,
  moment: measureMoment,
  traces: measureTraces,
  'merge-reports': measureMergeReports,
  resources: measureResources,
  skills: measureSkills,
  'console-flood': measureConsoleFlood,
  filmstrip: measureFilmstrip,
  'page-clock': measurePageClock,
  capture: measureCapture,
};

function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model,
    cores: cpus.length,
    memGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** `node -e ''` spawn → exit, median of 5: how busy the machine is, in the unit of every start-up ratio. */
async function bareNodeMedian(reaper: Reaper): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push(await bareNode(reaper));
  return round(median(runs), 1);
}

function table(rows: Row[]): string {
  const head = ['#', 'measure', 'value', 'reference', 'vs reference', 'target', 'met'];
  const cells = rows.map((r) => [
    r.id,
    r.what,
    r.value,
    r.reference ?? '',
    r.vs ?? '',
    r.target ?? '',
    r.met === null ? '' : r.met ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => v.padEnd(widths[i])).join(' | ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...cells.map(line)].join('\n');
}

async function main(): Promise<void> {
  const only = env.BENCH_ONLY ? env.BENCH_ONLY.split(',').map((s) => s.trim()) : Object.keys(MEASUREMENTS);
  const unknown = only.filter((n) => !MEASUREMENTS[n]);
  if (unknown.length)
    throw new Error(
      `unknown BENCH_ONLY entries: ${unknown.join(', ')} (known: ${Object.keys(MEASUREMENTS).join(', ')})`,
    );
  const reaper = new Reaper();
  const before = { ...machine(), bareNodeMs: await bareNodeMedian(reaper) };
  const started = Date.now();
  const results: Record<string, Measurement> = {};
  const failures: Record<string, string> = {};
  log(
    `${quick ? 'quick' : 'full'} run: ${only.join(', ')} on ${before.cores} × ${before.cpu}, load ${before.loadavg.join(' ')}`,
  );
  try {
    for (const name of only) {
      const t = Date.now();
      log(`${name}...`);
      try {
        results[name] = await MEASUREMENTS[name](reaper, cfg);
        log(`${name} done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      } catch (e) {
        failures[name] = (e as Error).stack ?? String(e);
        log(`${name} FAILED: ${(e as Error).message}`);
      }
      await reaper.reap(); // each measurement starts from nothing
    }
  } finally {
    await reaper.reap();
  }
  const rows = Object.values(results).flatMap((m) => m.rows);
  const out = {
    when: new Date(started).toISOString(),
    durationS: Math.round((Date.now() - started) / 1000),
    config: cfg,
    machine: { ...before, loadavgAfter: machine().loadavg, bareNodeMsAfter: await bareNodeMedian(reaper) },
    measurements: Object.fromEntries(Object.entries(results).map(([k, m]) => [k, m.figures])),
    table: rows,
    targets: {
      met: rows.filter((r) => r.met === true).length,
      missed: rows.filter((r) => r.met === false).map((r) => `${r.id}: ${r.what}`),
    },
    ...(Object.keys(failures).length ? { failures } : {}),
  };
  const file = env.BENCH_OUT ?? join(DIST, '..', 'bench', 'results.json');
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(
    `\n${table(rows)}\n\nmachine: ${before.cores} × ${before.cpu}, node ${before.node}, load ${before.loadavg.join(' ')} → ${out.machine.loadavgAfter.join(' ')}, node -e '' ${before.bareNodeMs} → ${out.machine.bareNodeMsAfter} ms; ${out.durationS} s\nwrote ${file}\n`,
  );
  if (Object.keys(failures).length) {
    process.stdout.write(`failed: ${Object.keys(failures).join(', ')}\n`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  process.stderr.write(`bench: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
