/**
 * "Try a tool": pick a live game and one of its tools; the argument fields come from the tool's
 * JSON Schema (describe_toolset); Run sends call_tool and shows the answer.
 */
import type { InstanceView, ToolsetView } from '../daemon/dashboard/view.js';
import { byId, getJson, h, setText } from './dom.js';
import { pretty } from './feed.js';
import { fieldFor, readField, type Field } from './fields.js';

type Tool = ToolsetView['tools'][number];

export class TryForm {
  private readonly form = byId<HTMLFormElement>('try');
  private readonly portSel = byId<HTMLSelectElement>('try-port');
  private readonly toolSel = byId<HTMLSelectElement>('try-tool');
  private readonly fieldsBox = byId<HTMLFieldSetElement>('try-fields');
  private readonly run = byId<HTMLButtonElement>('try-run');
  private readonly answer = byId('try-answer');
  private tools = new Map<string, Tool>();
  private fields: Field[] = [];
  private games = '';
  private loadedPort = 0;
  private loaded: Array<(port: number, toolsets: ToolsetView[]) => void> = [];

  /** the person picked a game: the list no longer picks one for them */
  private picked = false;

  constructor() {
    this.portSel.addEventListener('change', () => {
      this.picked = true;
      void this.loadTools();
    });
    this.toolSel.addEventListener('change', () => this.showTool());
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.submit();
    });
  }

  /** Keep the game list in step with the live instances (the selection stays when it can). */
  setGames(list: InstanceView[]): void {
    const live = list.filter((i) => i.status.startsWith('live'));
    const key = live.map((i) => `${i.port}:${i.name}:${i.owner}`).join('|');
    if (key === this.games) return;
    this.games = key;
    const current = this.portSel.value;
    this.portSel.replaceChildren(
      ...(live.length
        ? live.map((i) => h('option', { value: i.port }, `${i.name ?? 'Game'} (port ${i.port})`))
        : [h('option', { value: '' }, 'No live game')]),
    );
    if (this.picked && live.some((i) => String(i.port) === current)) this.portSel.value = current;
    else if (live.length) this.portSel.value = String(played(live).port);
    if (Number(this.portSel.value) !== this.loadedPort) void this.loadTools();
  }

  private async loadTools(): Promise<void> {
    const port = Number(this.portSel.value);
    this.loadedPort = port;
    this.tools.clear();
    this.toolSel.replaceChildren();
    this.toolSel.disabled = this.run.disabled = true;
    this.showTool();
    if (!port) return;
    setText(byId('try-hint'), 'Reading its tools…');
    try {
      const r = await getJson<{ toolsets: ToolsetView[] }>(`/dashboard/api/toolsets?port=${port}`);
      if (port !== this.loadedPort) return;
      for (const ts of r.toolsets) {
        const group = h('optgroup', { label: ts.name });
        for (const t of ts.tools) {
          // toolset.tool picks one toolset (a bare name would find the first match); composites and skills go by name.
          const id = ts.name === 'composites' || ts.name === 'skills' ? t.name : `${ts.name}.${t.name}`;
          this.tools.set(id, t);
          group.append(h('option', { value: id }, t.name));
        }
        this.toolSel.append(group);
      }
      this.toolSel.disabled = this.run.disabled = this.tools.size === 0;
      setText(byId('try-hint'), '');
      for (const l of this.loaded) l(port, r.toolsets);
    } catch (e) {
      setText(byId('try-hint'), (e as Error).message);
    }
    this.showTool();
  }

  /** Told the game's toolsets each time they are read (the skills panel). */
  onLoaded(listener: (port: number, toolsets: ToolsetView[]) => void): void {
    this.loaded.push(listener);
  }

  /** Read the game's tools again (a skill kept or deleted), keeping the tool picked. */
  reload(): void {
    void this.loadTools();
  }

  /** Pick a tool by its id, its argument fields shown. */
  select(id: string): void {
    if (!this.tools.has(id)) return;
    this.toolSel.value = id;
    this.showTool();
    this.toolSel.focus();
  }

  private showTool(): void {
    const tool = this.tools.get(this.toolSel.value);
    setText(byId('try-doc'), tool ? `${tool.description}${tool.readOnly ? ' (read-only)' : ''}` : '');
    const schema = (tool?.inputSchema ?? {}) as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    const required = new Set(schema.required ?? []);
    this.fields = Object.entries(schema.properties ?? {}).map(([name, prop]) =>
      fieldFor(name, prop, required.has(name)),
    );
    this.fieldsBox.replaceChildren(h('legend', { class: 'sr-only' }, 'Arguments'), ...this.fields.map((f) => f.el));
    if (tool && !this.fields.length) this.fieldsBox.append(h('p', { class: 'hint' }, 'No arguments.'));
  }

  private async submit(): Promise<void> {
    const port = Number(this.portSel.value);
    const id = this.toolSel.value;
    if (!port || !this.tools.has(id)) return;
    const args: Record<string, unknown> = {};
    for (const f of this.fields) {
      const v = readField(f);
      if (v.error) {
        this.show(true, v.error, [], undefined, 'Check the form');
        f.input.focus();
        return;
      }
      if (v.value !== undefined) args[f.name] = v.value;
    }
    this.run.disabled = true;
    setText(byId('try-hint'), 'Running…');
    const started = performance.now();
    try {
      const r = await getJson<{ isError: boolean; text: string; images: string[] }>('/dashboard/api/call', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ port, name: id, arguments: args }),
      });
      this.show(r.isError, r.text, r.images, performance.now() - started);
    } catch (e) {
      this.show(true, (e as Error).message);
    } finally {
      this.run.disabled = false;
      setText(byId('try-hint'), '');
    }
  }

  private show(isError: boolean, text: string, images: string[] = [], ms?: number, label?: string): void {
    const cls = label ?? /^([A-Z][A-Za-z]+):/.exec(text)?.[1];
    this.answer.replaceChildren(
      h(
        'div',
        { class: 'answer-head' },
        isError ? h('span', { class: 'badge s-bad' }, cls ?? 'Error') : h('span', { class: 'badge s-live' }, 'OK'),
        ms !== undefined ? `${Math.round(ms)} ms` : '',
      ),
      ...images.map((src) => h('img', { src, alt: 'Image in the answer' })),
      h('pre', { class: 'json', tabindex: 0 }, pretty(text)),
    );
  }
}

/** The game a person most likely means: one a connected session plays (the newest of those), else the first. */
function played(live: InstanceView[]): InstanceView {
  const owned = live.filter((i) => i.owner !== null);
  const newest = (a: InstanceView, b: InstanceView) => Date.parse(b.startedAt ?? '') - Date.parse(a.startedAt ?? '');
  return owned.sort(newest)[0] ?? live[0];
}
