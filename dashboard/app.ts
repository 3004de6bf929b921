/**
 * The dashboard page: one event stream from the daemon ('hello' with everything, then 'state' when
 * instances or sessions change and 'calls' for finished tool calls), rendered in place.
 */
import type { CallSummary, DashboardHello, DashboardState } from '../daemon/dashboard/view.js';
import { LoggedOut, readEvents } from './auth.js';
import { byId, duration, h, setText } from './dom.js';
import { CallFeed } from './feed.js';
import { TryForm } from './form.js';
import { InstanceCards } from './instances.js';
import { SessionList } from './sessions.js';
import { SkillsPanel } from './skills.js';

const instances = new InstanceCards();
const sessions = new SessionList();
const feed = new CallFeed();
const form = new TryForm();
const skills = new SkillsPanel(form);
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

function hello(d: DashboardHello['daemon']): void {
  daemonStarted = d.startedAt;
  byId('daemon').replaceChildren(
    'Daemon ',
    h('b', {}, `v${d.version}`),
    ` · pid ${d.pid} · port ${d.port} · up `,
    h('span', { id: 'daemon-up' }, duration(Date.now() - Date.parse(d.startedAt))),
    ' · ',
    h('bdi', { title: d.home }, d.home),
  );
}

/** The live feed: read until it breaks, then again a second later, until the daemon refuses the page. */
async function connect(): Promise<void> {
  for (;;) {
    try {
      await readEvents(
        '/dashboard/events',
        () => connection('live', 'Live'),
        (event, data) => {
          if (event === 'hello') {
            const d = JSON.parse(data) as DashboardHello;
            hello(d.daemon);
            applyState(d.state);
            feed.reset(d.calls);
            skills.setCalls(d.calls);
            connection('live', 'Live');
          } else if (event === 'state') applyState(JSON.parse(data) as DashboardState);
          else if (event === 'calls') {
            const calls = JSON.parse(data) as CallSummary[];
            feed.addMany(calls);
            skills.setCalls(calls, true);
          }
        },
      );
    } catch (e) {
      if (e instanceof LoggedOut) {
        connection('lost', 'Disconnected');
        setText(byId('daemon'), e.message);
        // A page that never logged in has nothing true to show: no empty lists that look like news.
        if (!daemonStarted) document.querySelector('main')?.setAttribute('hidden', '');
        return;
      }
    }
    connection('connecting', 'Reconnecting');
    await new Promise((r) => setTimeout(r, 1000));
  }
}

setInterval(() => {
  instances.tick();
  sessions.tick();
  const up = document.getElementById('daemon-up');
  if (up && daemonStarted) setText(up, duration(Date.now() - Date.parse(daemonStarted)));
}, 1000);

void connect();
