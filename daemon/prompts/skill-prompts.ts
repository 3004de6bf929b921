/**
 * A prompt per skill of a running game (docs/COMPOSITES.md, "Skills"): `skill_<name>` says when
 * to use the skill and how to call it, its arguments being the skill's own. The session gathers
 * the skills (tools/skill-offers.ts) and hands them here as plain data.
 */
import { usageError } from '../../shared/errors.js';

export const SKILL_PROMPT_PREFIX = 'skill_';

/** What a prompt needs of one skill on one game. */
export interface SkillPromptSource {
  port: number;
  game: string | null;
  readOnly: boolean;
  skill: {
    name: string;
    description: string;
    args: Array<{ name: string; type?: string; description?: string; required?: boolean; default?: unknown }>;
    steps: unknown[];
  };
}

const MAX_ARG_CHARS = 4000;

function argText(a: SkillPromptSource['skill']['args'][number]): string {
  const bits = [a.type ?? 'any', a.default !== undefined ? `default ${JSON.stringify(a.default)}` : ''];
  return `${a.description ? a.description + ' ' : ''}(${bits.filter(Boolean).join(', ')})`;
}

/** One skill's prompts/list entry: one per name, however many games serve it. */
function listed(name: string, offers: SkillPromptSource[]) {
  const s = offers[0].skill;
  const where = offers.map((o) => `${o.game ?? 'game'} :${o.port}`).join(', ');
  return {
    name: SKILL_PROMPT_PREFIX + name,
    title: `Skill ${name}`,
    description: `${s.description} (a skill of ${where}, ${s.steps.length} step${s.steps.length === 1 ? '' : 's'})`,
    arguments: s.args.map((a) => ({
      name: a.name,
      description: argText(a),
      required: a.required === true && a.default === undefined,
    })),
  };
}

function byName(offers: SkillPromptSource[]): Map<string, SkillPromptSource[]> {
  const out = new Map<string, SkillPromptSource[]>();
  for (const o of offers) out.set(o.skill.name, [...(out.get(o.skill.name) ?? []), o]);
  return out;
}

/** prompts/list's skill entries. */
export function listSkillPrompts(offers: SkillPromptSource[]) {
  return [...byName(offers)].map(([name, os]) => listed(name, os));
}

/** A prompt argument (always a string) as the skill's argument type takes it; text that does not parse stays text. */
function valueOf(type: string | undefined, text: string): unknown {
  if (type === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** prompts/get for `skill_<name>`: undefined when the name is not a skill's prompt. */
export function getSkillPrompt(name: string, offers: SkillPromptSource[], args: Record<string, unknown> = {}) {
  if (!name.startsWith(SKILL_PROMPT_PREFIX)) return undefined;
  const os = byName(offers).get(name.slice(SKILL_PROMPT_PREFIX.length));
  if (!os) return undefined;
  const { skill } = os[0];
  const values: Record<string, unknown> = {};
  for (const a of skill.args) {
    const v = args[a.name];
    if (v === undefined || v === '') {
      if (a.required && a.default === undefined)
        throw usageError(`The prompt '${name}' needs '${a.name}': ${argText(a)}.`);
      continue;
    }
    values[a.name] = valueOf(a.type, String(v).slice(0, MAX_ARG_CHARS));
  }
  const ports = os.map((o) => o.port);
  const port = ports.length === 1 ? String(ports[0]) : `<one of ${ports.join(', ')}>`;
  const call = `\`call_tool\` {port: ${port}, name: "${skill.name}", arguments: ${JSON.stringify(values)}}`;
  const effect = os.every((o) => o.readOnly)
    ? 'It only reads and checks: calling it changes nothing in the game.'
    : 'It changes the game (its steps act on it): call it when that is what you want.';
  const text = [
    `Use the skill '${skill.name}' of ${os.map((o) => `${o.game ?? 'game'} on port ${o.port}`).join(', ')}: ${skill.description}`,
    `Run it with ${call}. ${effect}`,
    skill.args.length
      ? `Its arguments: ${skill.args.map((a) => `${a.name}${a.required && a.default === undefined ? '' : '?'} ${argText(a)}`).join('; ')}.`
      : 'It takes no arguments.',
    `It runs ${skill.steps.length} step${skill.steps.length === 1 ? '' : 's'} in one call and answers what each step said and the state after. ` +
      'If a step fails it stops there, naming the step and the state: read the error, fix the game or the arguments, and call it again. ' +
      '`describe_toolset` {port, toolset: "skills"} shows its arguments as JSON Schema.',
  ].join('\n');
  return {
    description: skill.description,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }],
  };
}
