/**
 * A real proxy driven by raw JSON-RPC lines (no SDK client), for what an SDK client would not
 * do: malformed or oversized lines, duplicate ids, not reading stdout. Reaped by the Reaper.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { CLI, waitFor, type Reaper } from './procs.js';

export interface RawProxy {
  child: ChildProcessWithoutNullStreams;
  /** stdout lines so far (while reading) */
  lines: string[];
  stderr(): string;
  send(msg: unknown): void;
  /** the first answer with this id */
  answer(id: unknown, timeoutMs?: number): Promise<Record<string, any>>;
  /** stop reading stdout (the pipe fills, the proxy's stdout blocks) / read again */
  stopReading(): void;
  startReading(): void;
}

export function rawProxy(reaper: Reaper, env: Record<string, string>, args: string[] = ['--no-scan']): RawProxy {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  reaper.track(child.pid);
  const lines: string[] = [];
  /** answers by id, each line parsed once (a test may read tens of MB) */
  const answers = new Map<string, Record<string, any>>();
  /** big answer lines by id, not yet parsed */
  const bigLines = new Map<string, string>();
  let partial = '';
  let err = '';
  const onData = (d: Buffer) => {
    partial += d.toString();
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const l of parts) {
      if (!l.length) continue;
      lines.push(l);
      // Big answers are indexed by the id at their end and parsed only when asked for: a test may
      // read tens of MB of answers it never looks into.
      if (l.length > 8192) {
        const id = /"id":("[^"]*"|-?\d+)\}$/.exec(l)?.[1];
        if (id && !answers.has(id)) bigLines.set(id, l);
        continue;
      }
      try {
        const m = JSON.parse(l) as Record<string, any>;
        const key = JSON.stringify(m.id);
        if (m.id !== undefined && m.method === undefined && !answers.has(key)) answers.set(key, m);
      } catch {
        /* checked by the tests that care */
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const find = (id: unknown) => {
    const key = JSON.stringify(id);
    const big = bigLines.get(key);
    if (big !== undefined && !answers.has(key)) answers.set(key, { ...JSON.parse(big), big: true });
    return answers.get(key);
  };
  return {
    child,
    lines,
    stderr: () => err,
    send: (msg) => child.stdin.write((typeof msg === 'string' ? msg : JSON.stringify(msg)) + '\n'),
    answer: (id, timeoutMs = 30000) => waitFor(`an answer to id ${JSON.stringify(id)}`, () => find(id), timeoutMs),
    stopReading: () => {
      child.stdout.off('data', onData);
      child.stdout.pause();
    },
    startReading: () => {
      child.stdout.on('data', onData);
      child.stdout.resume();
    },
  };
}

export const INIT = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
export const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
