/**
 * 9. call_tool get_state over Streamable HTTP (/mcp, a 2025 session) against the stdio pair
 * (proxy+daemon), both on one daemon and one 60 fps game, in alternating blocks so machine
 * noise lands on both alike. The HTTP client is the SDK's, once over node:http (the target's
 * row: what the daemon adds) and once over Node's built-in fetch (what that client stack adds).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readDaemonFile } from '../shared/daemon-file.js';
import { homePaths } from '../shared/paths.js';
import { cpuMs } from './cpu.js';
import { closeNodeFetch, nodeFetch } from './node-fetch.js';
import { connectMcp, daemonPid, freeRange, now, pct, round, startGame, type Reaper } from './harness.js';
import { ms, type BenchConfig, type Measurement } from './types.js';

type Mode = 'stdio' | 'http' | 'httpFetch';

/** An SDK client on the daemon's /mcp, with the token from daemon.json; over node:http unless `builtinFetch`. */
async function connectHttp(home: string, builtinFetch = false): Promise<Client> {
  const info = readDaemonFile(homePaths(home).daemonJson);
  if (!info) throw new Error(`no readable daemon.json in ${home}`);
  const { port, token } = info;
  const client = new Client({ name: 'bench-http', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      ...(builtinFetch ? {} : { fetch: nodeFetch }),
    }),
  );
  return client;
}

export async function measureHttp(r: Reaper, cfg: BenchConfig): Promise<Measurement> {
  const home = r.home('gb-bench-http-');
  const [port] = await freeRange(1);
  await startGame(r, port, home);
  const stdio = await connectMcp(r, 'proxy', home); // starts the daemon
  const http = await connectHttp(home);
  const httpFetch = await connectHttp(home, true);
  const getState = { name: 'call_tool', arguments: { port, name: 'get_state' } };
  const calls: Record<Mode, () => Promise<unknown>> = {
    stdio: () => stdio.call('call_tool', { port, name: 'get_state' }),
    http: () => http.callTool(getState),
    httpFetch: () => httpFetch.callTool(getState),
  };
  const modes = Object.keys(calls) as Mode[];
  const samples: Record<Mode, number[]> = { stdio: [], http: [], httpFetch: [] };
  // CPU per call of every process on the path (this client, the proxy, the daemon): unlike wall
  // time it does not move with the load other programs put on the machine.
  const daemon = daemonPid(home)!;
  const parts = () => {
    const c = process.cpuUsage();
    return { client: (c.user + c.system) / 1000, proxy: cpuMs(stdio.pid), daemon: cpuMs(daemon) };
  };
  type Parts = ReturnType<typeof parts>;
  const cpu: Record<Mode, Parts> = {
    stdio: { client: 0, proxy: 0, daemon: 0 },
    http: { client: 0, proxy: 0, daemon: 0 },
    httpFetch: { client: 0, proxy: 0, daemon: 0 },
  };
  for (const m of modes) for (let i = 0; i < Math.min(300, cfg.latencyCalls); i++) await calls[m](); // JIT and sockets warm
  for (let block = 0; samples.stdio.length < cfg.latencyCalls; block++) {
    const size = Math.min(cfg.latencyBlock, cfg.latencyCalls - samples.stdio.length);
    for (const m of block % 2 ? [...modes].reverse() : modes) {
      const before = parts();
      for (let i = 0; i < size; i++) {
        const t = now();
        await calls[m]();
        samples[m].push(now() - t);
      }
      const after = parts();
      for (const k of ['client', 'proxy', 'daemon'] as const) cpu[m][k] += after[k] - before[k];
    }
  }
  await http.close().catch(() => undefined);
  await httpFetch.close().catch(() => undefined);
  closeNodeFetch();
  await stdio.close();

  const stat = (m: Mode) => ({
    p50: round(pct(samples[m], 50), 3),
    p99: round(pct(samples[m], 99), 3),
    n: samples[m].length,
  });
  const s = stat('stdio');
  const h = stat('http');
  const f = stat('httpFetch');
  const added = round(h.p50 - s.p50, 3);
  const addedFetch = round(f.p50 - s.p50, 3);
  const perCall = (m: Mode) => ({
    client: round(cpu[m].client / samples[m].length, 3),
    proxy: round(cpu[m].proxy / samples[m].length, 3),
    daemon: round(cpu[m].daemon / samples[m].length, 3),
  });
  const cpuPerCall = (m: Mode) => round((cpu[m].client + cpu[m].proxy + cpu[m].daemon) / samples[m].length, 3);
  return {
    name: 'http',
    figures: {
      callsPerMode: cfg.latencyCalls,
      stdioPair: s,
      http: h,
      httpAddedP50: added,
      httpBuiltinFetch: f,
      httpBuiltinFetchAddedP50: addedFetch,
      cpuMsPerCall: { stdioPair: perCall('stdio'), http: perCall('http'), httpBuiltinFetch: perCall('httpFetch') },
    },
    rows: [
      {
        id: '9 http',
        what: `stdio pair get_state p50 / p99 (n=${s.n})`,
        value: `${ms(s.p50, 3)} / ${ms(s.p99, 3)}`,
        met: null,
      },
      {
        id: '9 http',
        what: 'HTTP /mcp get_state p50 / p99 (SDK client over node:http)',
        value: `${ms(h.p50, 3)} / ${ms(h.p99, 3)}`,
        reference: 'stdio pair',
        vs: `${added >= 0 ? '+' : ''}${ms(added, 3)} p50`,
        target: 'added ≤ 0.5 ms p50',
        met: added <= 0.5,
      },
      {
        id: '9 http',
        what: "same, SDK client over Node's built-in fetch",
        value: `${ms(f.p50, 3)} / ${ms(f.p99, 3)}`,
        reference: 'stdio pair',
        vs: `${addedFetch >= 0 ? '+' : ''}${ms(addedFetch, 3)} p50`,
        met: null,
      },
      {
        id: '9 http',
        what: 'CPU per get_state: client + proxy + daemon',
        value: `HTTP ${ms(cpuPerCall('http'), 3)} (daemon ${ms(perCall('http').daemon, 3)}), built-in fetch ${ms(cpuPerCall('httpFetch'), 3)}`,
        reference: 'stdio pair',
        vs: `${ms(cpuPerCall('stdio'), 3)} (daemon ${ms(perCall('stdio').daemon, 3)})`,
        met: null,
      },
    ],
  };
}
