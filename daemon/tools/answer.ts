/**
 * Tool answers (SPEC §5): one JSON object, given both as structuredContent and as a single
 * text block holding the same JSON; errors as isError results whose text starts with the
 * class. Answers over the limit are cut with a visible marker saying how to ask for less.
 */
import { toBridgeError } from '../../shared/errors.js';
import type { ToolAnswer } from './types.js';

export interface CallToolResult {
  [k: string]: unknown;
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Cut an over-long JSON object, keeping the answer valid JSON with a marker. */
export function bound(json: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  const text = JSON.stringify(json);
  if (text.length <= maxChars) return json;
  const keep: Record<string, unknown> = {};
  // Keep the small scalar fields (port, tool, frame, screen...) whole: they orient the agent.
  for (const [k, v] of Object.entries(json)) {
    if (v === null || typeof v !== 'object') {
      const s = JSON.stringify(v);
      if (s && s.length < 200) keep[k] = v;
    }
  }
  const budget = Math.max(200, maxChars - JSON.stringify(keep).length - 400);
  return {
    ...keep,
    truncated: true,
    note:
      `Answer cut at ${budget} of ${text.length} characters. Ask for less: get_state {path: "game.someKey"} ` +
      `reads one part of the state; the top-level keys are listed in "keys".`,
    keys: Object.keys(json).slice(0, 50),
    preview: text.slice(0, budget),
  };
}

export function okResult(answer: ToolAnswer, maxChars: number): CallToolResult {
  const json = bound(answer.json, maxChars);
  const content: CallToolResult['content'] = [{ type: 'text', text: JSON.stringify(json) }];
  for (const img of answer.images ?? []) content.push({ type: 'image', data: img.data, mimeType: img.mimeType });
  return { content, structuredContent: json };
}

export function errorResult(e: unknown): CallToolResult {
  const err = toBridgeError(e);
  return { content: [{ type: 'text', text: err.text }], isError: true };
}

export function isToolAnswer(x: unknown): x is ToolAnswer {
  return !!x && typeof x === 'object' && 'json' in x && typeof (x as ToolAnswer).json === 'object' && Object.keys(x as object).every((k) => k === 'json' || k === 'images');
}
