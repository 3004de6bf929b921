/**
 * The skills panel's edit form: one skill's description and arguments (name, type, default,
 * required, what it is), its steps shown as they are. Saved through call_tool define_skill with
 * overwrite, so an edit meets the checks an agent's definition meets and a refusal shows their
 * words, each problem with its step. An argument renamed is renamed in the steps too.
 */
import type { SkillView } from '../daemon/dashboard/view.js';
import { byId, getJson, h, setText } from './dom.js';
import { pretty } from './feed.js';

type Answer = { isError: boolean; text: string };
type Arg = SkillView['skill']['args'][number];

const TYPES = ['', 'string', 'number', 'integer', 'boolean', 'object', 'array'] as const;

/** `${from}` written `${to}` in every string of the steps. */
function renamed(v: unknown, names: Map<string, string>): unknown {
  if (typeof v === 'string')
    return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, n: string) =>
      names.has(n) ? '${' + names.get(n) + '}' : m,
    );
  if (Array.isArray(v)) return v.map((x) => renamed(x, names));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renamed(x, names)]));
  return v;
}

/** A default as the field shows it: a string as itself, anything else as JSON. */
const shown = (a: Arg): string =>
  a.default === undefined
    ? ''
    : a.type === 'string' && typeof a.default === 'string'
      ? a.default
      : JSON.stringify(a.default);

export class SkillEditor {
  private readonly form = byId<HTMLFormElement>('skill-edit');
  private readonly rows = byId('skill-edit-args');
  private readonly answer = byId('skill-edit-answer');
  private editing?: SkillView;

  constructor(
    private readonly post: (port: number, name: string, args: Record<string, unknown>) => Promise<Answer>,
    private readonly saved: () => void,
  ) {
    this.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.save();
    });
    byId('skill-edit-add').addEventListener('click', () => this.rows.append(this.row()));
    byId('skill-edit-close').addEventListener('click', () => this.close());
  }

  /** Open the form on one skill of the game on `port`, read afresh from its file. */
  async open(port: number, name: string): Promise<void> {
    try {
      this.editing = await getJson<SkillView>(`/dashboard/api/skill?port=${port}&name=${encodeURIComponent(name)}`);
    } catch (e) {
      this.form.hidden = false;
      return this.say({ isError: true, text: (e as Error).message });
    }
    const { skill, file } = this.editing;
    setText(byId('skill-edit-title'), `Edit ${skill.name}`);
    setText(byId('skill-edit-file'), file);
    byId<HTMLTextAreaElement>('skill-edit-description').value = skill.description;
    this.rows.replaceChildren(...skill.args.map((a) => this.row(a)));
    setText(byId('skill-edit-steps-count'), `Steps (${skill.steps.length}), kept as they are`);
    setText(byId('skill-edit-steps'), JSON.stringify(skill.steps, null, 2));
    this.answer.replaceChildren();
    this.form.hidden = false;
    byId<HTMLTextAreaElement>('skill-edit-description').focus();
  }

  /** The skill being edited was deleted, or the game changed. */
  close(name?: string): void {
    if (name !== undefined && this.editing?.skill.name !== name) return;
    this.editing = undefined;
    this.form.hidden = true;
  }

  private row(a?: Arg): HTMLElement {
    const input = (cls: string, label: string, value: string, placeholder: string) =>
      h('input', { type: 'text', class: cls, 'aria-label': label, placeholder, value });
    const type = h(
      'select',
      { class: 'arg-type', 'aria-label': 'Type' },
      ...TYPES.map((t) => h('option', { value: t, selected: (a?.type ?? '') === t }, t || 'any')),
    );
    const remove = h('button', { type: 'button', class: 'arg-remove', 'aria-label': 'Remove this argument' }, '×');
    const row = h(
      'div',
      { class: 'arg-row', 'data-was': a?.name },
      input('arg-name', 'Name', a?.name ?? '', 'name'),
      type,
      input('arg-default', 'Default', a ? shown(a) : '', 'default'),
      h(
        'label',
        { class: 'check' },
        h('input', { type: 'checkbox', class: 'arg-required', checked: a?.required === true }),
        'required',
      ),
      remove,
      input(
        'arg-description',
        'What it is',
        a?.description ?? '',
        'what it is, for the prompt and the form (optional)',
      ),
    );
    remove.addEventListener('click', () => row.remove());
    return row;
  }

  /** The rows as the skill's args; a default that is not of its type is refused here, naming the argument. */
  private args(): Arg[] {
    return [...this.rows.querySelectorAll<HTMLElement>('.arg-row')].map((row) => {
      const value = (cls: string) => row.querySelector<HTMLInputElement>(`.${cls}`)!.value.trim();
      const name = value('arg-name');
      const type = value('arg-type') as Arg['type'] | '';
      const text = value('arg-default');
      let def: unknown;
      if (text !== '') {
        if (type === 'string') def = text;
        else
          try {
            def = JSON.parse(text);
          } catch {
            if (type)
              throw new Error(
                `UsageError: argument '${name}': its default ${text} is not a ${type} (JSON, as 3, true, [1] or {"a": 1}).`,
              );
            def = text;
          }
      }
      return {
        name,
        ...(type ? { type } : {}),
        ...(value('arg-description') ? { description: value('arg-description') } : {}),
        ...(row.querySelector<HTMLInputElement>('.arg-required')!.checked ? { required: true } : {}),
        ...(def !== undefined ? { default: def } : {}),
      };
    });
  }

  private async save(): Promise<void> {
    if (!this.editing) return;
    const { port, skill } = this.editing;
    let args: Arg[];
    try {
      args = this.args();
    } catch (e) {
      return this.say({ isError: true, text: (e as Error).message });
    }
    const names = new Map<string, string>();
    this.rows.querySelectorAll<HTMLElement>('.arg-row').forEach((row, i) => {
      const was = row.dataset.was;
      if (was && was !== args[i].name && args[i].name) names.set(was, args[i].name);
    });
    const r = await this.post(port, 'define_skill', {
      name: skill.name,
      description: byId<HTMLTextAreaElement>('skill-edit-description').value.trim(),
      args,
      steps: renamed(skill.steps, names),
      ...(skill.maxSteps !== undefined ? { maxSteps: skill.maxSteps } : {}),
      ...(skill.maxMs !== undefined ? { maxMs: skill.maxMs } : {}),
      overwrite: true,
    });
    if (r.isError) return this.say(r);
    await this.open(port, skill.name);
    this.say(r);
    this.saved();
  }

  private say(r: Answer): void {
    this.answer.replaceChildren(
      h(
        'div',
        { class: 'answer-head' },
        h('span', { class: `badge ${r.isError ? 's-bad' : 's-live'}` }, r.isError ? 'Refused' : 'Saved'),
      ),
      h('pre', { class: 'json', tabindex: 0 }, pretty(r.text)),
    );
  }
}
