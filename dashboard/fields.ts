/**
 * One form field per JSON Schema property: numbers and integers as number inputs, booleans as
 * a yes/no/unset choice (a checkbox cannot say "leave the default"), enums as a select, strings
 * as text, anything else (objects, arrays, unions) as JSON in a textarea.
 */
import { h } from './dom.js';

export interface Field {
  name: string;
  kind: 'number' | 'integer' | 'boolean' | 'enum' | 'string' | 'json';
  required: boolean;
  el: HTMLElement;
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
}

let seq = 0;

export function fieldFor(name: string, prop: Record<string, unknown>, required: boolean): Field {
  const id = `f-${++seq}`;
  const type = Array.isArray(prop.type) ? undefined : (prop.type as string | undefined);
  const doc = typeof prop.description === 'string' ? prop.description : '';
  let kind: Field['kind'];
  let input: Field['input'];
  if (Array.isArray(prop.enum)) {
    kind = 'enum';
    input = h(
      'select',
      { id, name },
      required ? '' : h('option', { value: '' }, '(default)'),
      ...prop.enum.map((v) => h('option', { value: JSON.stringify(v) }, String(v))),
    );
  } else if (type === 'boolean') {
    kind = 'boolean';
    input = h(
      'select',
      { id, name },
      required ? '' : h('option', { value: '' }, '(default)'),
      h('option', { value: 'true' }, 'true'),
      h('option', { value: 'false' }, 'false'),
    );
  } else if (type === 'number' || type === 'integer') {
    kind = type;
    input = h('input', {
      id,
      name,
      type: 'number',
      step: type === 'integer' ? 1 : 'any',
      min: num(prop.minimum),
      max: num(prop.maximum),
      inputmode: type === 'integer' ? 'numeric' : 'decimal',
    });
  } else if (type === 'string') {
    kind = 'string';
    input = h('input', { id, name, type: 'text', autocomplete: 'off', spellcheck: 'false' });
  } else {
    kind = 'json';
    input = h('textarea', {
      id,
      name,
      rows: 3,
      spellcheck: 'false',
      placeholder: type === 'array' ? '[ ]' : type === 'object' ? '{ }' : 'JSON',
    });
  }
  input.required = required;
  const docId = `${id}-doc`;
  if (doc) input.setAttribute('aria-describedby', docId);
  const label = h(
    'label',
    { for: id },
    name,
    required ? h('span', { class: 'req' }, ' (required)') : '',
    h('span', { class: 'hint' }, ` ${kind === 'json' ? (type ?? 'JSON') : kind}`),
  );
  const el = h('div', { class: 'field' }, label, input, doc ? h('small', { id: docId }, doc) : '');
  return { name, kind, required, el, input };
}

/** The field's value for the call: undefined when left empty (the tool's default applies). */
export function readField(f: Field): { value?: unknown; error?: string } {
  const raw = f.input.value.trim();
  if (raw === '') return f.required ? { error: `'${f.name}' is required.` } : {};
  switch (f.kind) {
    case 'number':
    case 'integer': {
      const n = Number(raw);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n)))
        return { error: `'${f.name}' must be ${f.kind === 'integer' ? 'a whole number' : 'a number'}.` };
      return { value: n };
    }
    case 'boolean':
      return { value: raw === 'true' };
    case 'enum':
      return { value: JSON.parse(raw) };
    case 'string':
      return { value: f.input.value };
    default:
      try {
        return { value: JSON.parse(raw) };
      } catch {
        return { error: `'${f.name}' must be JSON, e.g. {"a": 1} or [1, 2].` };
      }
  }
}

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
