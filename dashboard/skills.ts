/**
 * The skills panel: the skills of the game picked in "Try a tool" (its `skills` toolset), each
 * run through that form, edited (skill-edit.ts) or deleted, and a new skill made from calls of
 * the feed picked one by one. Every change goes through call_tool (define_skill, delete_skill),
 * with the same checks as an agent's.
 */
import type { CallSummary, ToolsetView } from '../daemon/dashboard/view.js';
import { byId, getJson, h, setText } from './dom.js';
import { pretty } from './feed.js';
import type { TryForm } from './form.js';
import { SkillEditor } from './skill-edit.js';

/** Calls offered to pick from: the latest of the game's. */
const MAX_PICKS = 30;

type Answer = { isError: boolean; text: string };

/** Tools that change the project's files, which a skill does not call. */
const FILES = /^(bridge\.)?(define_skill|delete_skill|skill_from_session|save_test|run_test)$/;

const post = (port: number, name: string, args: Record<string, unknown>) =>
  getJson<Answer>('/dashboard/api/call', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ port, name, arguments: args }),
  });

function button(cls: string, text: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { type: 'button', class: cls }, text);
  b.addEventListener('click', onClick);
  return b;
}

/** The tools whose success changes a game's skills. */
const SKILL_TOOLS = new Set(['define_skill', 'delete_skill', 'skill_from_session']);

export class SkillsPanel {
  private readonly list = byId<HTMLUListElement>('skills');
  private readonly picks = byId('skill-picks');
  private readonly answer = byId('skill-answer');
  private port = 0;
  private calls: CallSummary[] = [];
  private readonly editor: SkillEditor;

  constructor(private readonly form: TryForm) {
    this.editor = new SkillEditor(post, () => this.form.reload());
    form.onLoaded((port, toolsets) => this.show(port, toolsets));
    byId<HTMLFormElement>('skill-new').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.create();
    });
  }

  /**
   * The feed's calls (all, then as they come): those on the picked game can become steps. A new
   * call of another client that changed the game's skills lists them again (the dashboard's own
   * calls list them when they answer).
   */
  setCalls(calls: CallSummary[], more = false): void {
    this.calls = (more ? [...this.calls, ...calls] : calls).slice(-500);
    this.renderPicks();
    const changed = (c: CallSummary) =>
      c.ok && c.port === this.port && c.session !== 'dashboard' && SKILL_TOOLS.has(c.gameTool ?? c.tool);
    if (more && calls.some(changed)) this.form.reload();
  }

  private show(port: number, toolsets: ToolsetView[]): void {
    if (port !== this.port) this.editor.close();
    this.port = port;
    const skills = toolsets.find((t) => t.name === 'skills')?.tools ?? [];
    this.list.replaceChildren(
      ...skills.map((s) => {
        const args = Object.keys((s.inputSchema as { properties?: object }).properties ?? {});
        return h(
          'li',
          { class: 'skill', 'data-skill': s.name },
          h('b', {}, s.name),
          s.readOnly ? h('span', { class: 'badge' }, 'read-only') : '',
          h('span', { class: 'hint' }, args.length ? ` (${args.join(', ')})` : ''),
          h('p', { class: 'tool-doc' }, s.description),
          button('skill-run', 'Run…', () => this.form.select(s.name)),
          button('skill-edit', 'Edit…', () => void this.editor.open(port, s.name)),
          button('skill-delete', 'Delete', () => void this.remove(s.name)),
        );
      }),
    );
    setText(byId('skills-empty'), skills.length ? '' : port ? 'This game has no skills yet.' : 'No live game.');
    this.renderPicks();
  }

  private renderPicks(): void {
    const mine = this.calls.filter(
      (c) => c.port === this.port && c.tool === 'call_tool' && c.ok && c.gameTool && !FILES.test(c.gameTool),
    );
    const picked = new Set([...this.picks.querySelectorAll('input:checked')].map((i) => (i as HTMLInputElement).value));
    this.picks.replaceChildren(
      ...mine
        .slice(-MAX_PICKS)
        .map((c) =>
          h(
            'label',
            { class: 'pick' },
            h('input', { type: 'checkbox', value: c.id, checked: picked.has(String(c.id)) }),
            ` ${c.gameTool}`,
          ),
        ),
    );
    if (!mine.length) this.picks.append(h('p', { class: 'hint' }, 'No calls on this game in the feed yet.'));
  }

  private async create(): Promise<void> {
    const ids = [...this.picks.querySelectorAll('input:checked')].map((i) => Number((i as HTMLInputElement).value));
    const name = byId<HTMLInputElement>('skill-name').value.trim();
    const description = byId<HTMLInputElement>('skill-description').value.trim();
    if (!ids.length) return this.say({ isError: true, text: 'UsageError: pick the calls that become its steps.' });
    const steps = [];
    for (const id of ids.sort((a, b) => a - b)) {
      // the feed keeps a call's arguments as JSON text, cut when long: such a call cannot be a step
      const rec = await getJson<{ args: string; gameTool?: string }>(`/dashboard/api/calls/${id}`);
      let args: { name?: string; arguments?: Record<string, unknown> };
      try {
        args = JSON.parse(rec.args) as typeof args;
      } catch {
        return this.say({
          isError: true,
          text: `UsageError: the feed kept only the start of ${rec.gameTool ?? 'a call'}'s arguments; pick another call, or define the skill over MCP.`,
        });
      }
      steps.push({ do: 'call_tool', name: args.name, arguments: args.arguments ?? {} });
    }
    const r = await post(this.port, 'define_skill', { name, description, steps });
    this.say(r);
    if (!r.isError) this.form.reload();
  }

  private async remove(name: string): Promise<void> {
    const r = await post(this.port, 'delete_skill', { name });
    this.say(r);
    if (r.isError) return;
    this.editor.close(name);
    this.form.reload();
  }

  private say(r: Answer): void {
    this.answer.replaceChildren(
      h(
        'div',
        { class: 'answer-head' },
        h('span', { class: `badge ${r.isError ? 's-bad' : 's-live'}` }, r.isError ? 'Refused' : 'OK'),
      ),
      h('pre', { class: 'json', tabindex: 0 }, pretty(r.text)),
    );
  }
}
