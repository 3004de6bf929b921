/**
 * The page's login and every request it makes. The one-time key in the address is traded once
 * for a secret kept in this origin's localStorage, which only pages of this origin (host and
 * port) read, so a reload, another tab or the same link opened again stays logged in for as
 * long as the daemon that issued it runs (a restarted daemon knows no secret: its 401 clears
 * it). Each request carries it in a header, which a browser never adds to a request of its own
 * accord, so nothing it sends to another server on this host is worth replaying. The live feed
 * is a streaming fetch (an EventSource cannot send headers).
 */
const HEADER = 'X-GameBridge-Dashboard';
const STORE = 'gameBridgeDashboard';

/** Take the key out of the address bar at once (before anything can read or bookmark it). */
const key = new URLSearchParams(location.search).get('key');
if (key !== null) history.replaceState(null, '', location.pathname);

/** Why the page is not logged in, for the person looking at it. */
export class LoggedOut extends Error {}

let login: Promise<string> | undefined;

/** The page's secret: the stored one, or the key's, traded now. */
function secret(): Promise<string> {
  login ??= (async () => {
    if (key === null) {
      const kept = localStorage.getItem(STORE);
      if (kept) return kept;
      throw new LoggedOut('This page is not logged in. Run `game-bridge-mcp dashboard` for a new link.');
    }
    const res = await fetch('/dashboard/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key }),
    });
    const body = (await res.json().catch(() => ({}))) as { secret?: string; error?: string };
    if (!res.ok || !body.secret) {
      // A reload of a page whose key is spent still has the secret it bought.
      const kept = localStorage.getItem(STORE);
      if (kept) return kept;
      throw new LoggedOut(body.error ?? `The login was refused (HTTP ${res.status}).`);
    }
    localStorage.setItem(STORE, body.secret);
    return body.secret;
  })();
  return login;
}

/** fetch with the page's secret; a 401 means the daemon no longer knows it (restarted, or expired). */
export async function authFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(HEADER, await secret());
  const res = await fetch(url, { ...init, headers, credentials: 'omit' });
  if (res.status === 401) {
    localStorage.removeItem(STORE);
    throw new LoggedOut('The daemon is gone or restarted. Run `game-bridge-mcp dashboard` for a new link.');
  }
  return res;
}

/**
 * Read a Server-Sent Events stream until it ends: `onEvent` gets each named event's data.
 * Resolves when the stream ends or breaks; throws LoggedOut when the secret is refused.
 */
export async function readEvents(
  url: string,
  onOpen: () => void,
  onEvent: (event: string, data: string) => void,
): Promise<void> {
  const res = await authFetch(url, { headers: { accept: 'text/event-stream' }, cache: 'no-store' });
  if (!res.ok || !res.body) return;
  onOpen();
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(event, data.join('\n'));
    }
  }
}
