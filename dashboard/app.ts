/**
 * The dashboard page: one EventSource to the daemon ('hello' with everything, then 'state' when
 * instances or sessions change and 'call' for each finished tool call), rendered in place.
 */
import type { CallSummary, DashboardHello, DashboardState } from '../daemon/dashboard/view.js';
import { byId, duration, h, setText } from './dom.js';
import { CallFeed } from './feed.js';
import { TryForm } from './form.js';
import { InstanceCards } from './instances.js';
import { SessionList } from './sessions.js';

const instances = new InstanceCards();
const sessions = new SessionList();
const feed = new CallFeed();
const form = new TryForm();
/** Every session name seen, so the feed keeps naming sessions that have ended. */
const names = new Map<string, string>();
let daemonStarted = '';

function applyState(state: DashboardState): void {
  sessions.update(state.sessions);
  for (const [id, name] of sessions.names()) names.set(id, name);
  instances.setSessionNames(names);
  feed.setSessionNames(names);
  feed.setInstances(state.instances);
  instances.update(state.instances);
  form.setGames(state.instances);
}

function connection(state: 'live' | 'connecting' | 'lost', text: string): void {
  const el = byId('conn');
  el.dataset.state = state;
  setText(byId('conn-text'), text);
}

function connect(): void {
  const source = new EventSource('/dashboard/events');
  source.addEventListener('open', () => connection('live', 'Live'));
  source.addEventListener('hello', (e) => {
    const hello = JSON.parse((e as MessageEvent).data) as DashboardHello;
    const d = hello.daemon;
    daemonStarted = d.startedAt;
    byId('daemon').replaceChildren(
      'Daemon ',
      h('b', {}, `v${d.version}`),
      ` · pid ${d.pid} · port ${d.port} · up `,
      h('span', { id: 'daemon-up' }, duration(Date.now() - Date.parse(d.startedAt))),
      ' · ',
      h('bdi', { title: d.home }, d.home),
    );
    applyState(hello.state);
    feed.reset(hello.calls);
    connection('live', 'Live');
  });
  source.addEventListener('state', (e) => applyState(JSON.parse((e as MessageEvent).data) as DashboardState));
  source.addEventListener('calls', (e) => feed.addMany(JSON.parse((e as MessageEvent).data) as CallSummary[]));
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (a new daemon does not know this browser's cookie) or gone for good.
      connection('lost', 'Disconnected');
      setText(byId('daemon'), 'The daemon is gone or restarted. Run `game-bridge-mcp dashboard` for a new link.');
    } else connection('connecting', 'Reconnecting');
  });
}

setInterval(() => {
  instances.tick();
  sessions.tick();
  const up = document.getElementById('daemon-up');
  if (up && daemonStarted) setText(up, duration(Date.now() - Date.parse(daemonStarted)));
}, 1000);

connect();
