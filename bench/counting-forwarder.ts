/**
 * A TCP pass-through in front of a game, run in a worker thread (its own event loop, so it
 * does not queue behind the bench's MCP traffic). It counts the HTTP requests it forwards and
 * notes when the last /command and /state requests went through, in shared memory:
 *   counts[0] = GET /state requests, counts[1] = GET /command requests
 *   times[0] = last /command arrival, times[1] = last /state arrival (ms since the epoch, fractional)
 * The bridge is pointed at the forwarder's port; the game sees exactly the same requests.
 * The bench ends it with worker.terminate().
 */
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

const { target, counts, times } = workerData as { target: number; counts: SharedArrayBuffer; times: SharedArrayBuffer };
const c = new Int32Array(counts);
const t = new Float64Array(times);
const wall = () => performance.timeOrigin + performance.now();

const server = net.createServer((inbound) => {
  inbound.setNoDelay(true);
  const outbound = net.connect({ host: '127.0.0.1', port: target });
  outbound.setNoDelay(true);
  inbound.on('data', (chunk: Buffer) => {
    // Requests are small and start at a chunk boundary with keep-alive clients; count each.
    const text = chunk.toString('latin1');
    let at = 0;
    for (;;) {
      const s = text.indexOf('GET /state', at);
      const k = text.indexOf('GET /command', at);
      if (s < 0 && k < 0) break;
      if (s >= 0 && (k < 0 || s < k)) {
        Atomics.add(c, 0, 1);
        t[1] = wall();
        at = s + 1;
      } else {
        Atomics.add(c, 1, 1);
        t[0] = wall();
        at = k + 1;
      }
    }
    outbound.write(chunk);
  });
  outbound.on('data', (chunk) => inbound.write(chunk));
  const end = () => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on('error', end).on('close', end);
  outbound.on('error', end).on('close', end);
});

server.listen({ host: '127.0.0.1', port: 0 }, () => {
  parentPort!.postMessage({ port: (server.address() as net.AddressInfo).port });
});
