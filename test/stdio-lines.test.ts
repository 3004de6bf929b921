/**
 * Malformed client lines get a JSON-RPC error, never silence, in both modes: the proxy and the
 * in-process server share one line checker (shared/stdio-lines.ts).
 */
import { spawn } from 'node:child_process';
import { classifyLine } from '../shared/stdio-lines.js';
import { CLI, exitCode, removeDir, stopDaemon, tempHome, waitFor } from './helpers/procs.js';

test('classifyLine: every malformed shape is answered, valid ones pass', () => {
  const answer = (l: string) => {
    const c = classifyLine(l);
    return c.kind === 'answer' ? JSON.parse(c.answer) : c.kind;
  };
  expect(answer('{nope').error.code).toBe(-32700);
  expect(answer('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').error).toMatchObject({
    code: -32600,
    message: expect.stringMatching(/batches/),
  });
  expect(answer('42').error.code).toBe(-32600);
  expect(answer('{"jsonrpc":"2.0","id":7,"method":"tools/list","params":3}')).toMatchObject({
    id: 7,
    error: { code: -32600, message: expect.stringMatching(/params/) },
  });
  expect(answer('{"jsonrpc":"1.0","id":"a","method":"ping"}')).toMatchObject({ id: 'a', error: { code: -32600 } });
  expect(answer('{"jsonrpc":"2.0","id":2,"method":""}')).toMatchObject({ id: 2, error: { code: -32600 } });
  expect(answer('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toBe('request');
  expect(answer('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toBe('notification');
  expect(answer('{"jsonrpc":"2.0","id":1,"result":{}}')).toBe('response');
});

for (const mode of ['--no-daemon', 'proxy'] as const) {
  test(`${mode}: bad lines are answered on a stdout of only JSON-RPC and the session goes on`, async () => {
    const home = tempHome();
    const args = mode === 'proxy' ? [CLI, '--no-scan'] : [CLI, '--no-daemon', '--no-scan'];
    const child = spawn(process.execPath, args, {
      env: { ...process.env, GAME_BRIDGE_HOME: home, GAME_BRIDGE_IDLE_EXIT_MS: '3000' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const lines = [
        'not json at all',
        '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":"x"}',
        '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":4,"method":"tools/list"}',
      ];
      child.stdin.write(lines.join('\n') + '\n');
      await waitFor(
        'tools/list answered',
        () => out.split('\n').some((l) => /"id":4\b/.test(l) && /"result"/.test(l)),
        20000,
      );
      child.stdin.end();
      await exitCode(child);
      const msgs = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(msgs.find((m) => m.id === null && m.error?.code === -32700)).toBeTruthy();
      expect(msgs.find((m) => m.id === null && /batches/.test(m.error?.message ?? ''))).toBeTruthy();
      expect(msgs.find((m) => m.id === 2)?.error?.code).toBe(-32600);
      expect(msgs.find((m) => m.id === 3)?.result?.serverInfo?.name).toBe('game-bridge-mcp');
      expect(msgs.find((m) => m.id === 4)?.result?.tools).toHaveLength(7);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (mode === 'proxy') stopDaemon(home); // a daemon outlives its proxy by design
      removeDir(home);
    }
  });
}
