/**
 * Tool answers: one JSON object, given both as structuredContent and as a single text block
 * holding the same JSON; errors as isError results whose text starts with the class and whose
 * structuredContent is the error's data. Answers over the limit are cut with a visible marker
 * saying how to ask for less (docs/DECISIONS.md, "bounded answers").
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { toBridgeError } from '../../shared/errors.js';
import type { ToolAnswer } from '../tool-framework/types.js';

/** Dotted paths one level into the answer's objects, phrased as get_state paths. */
function pathsToAskFor(json: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(json)) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const prefix = k === 'state' ? '' : k === 'value' && typeof json.path === 'string' ? `${json.path}.` : `${k}.`;
    for (const sub of Object.keys(v)) out.push(prefix + sub);
  }
  return out.slice(0, 60);
}

/**
 * One answer as JSON and as its text, cut when over `maxChars`: the cut answer stays valid
 * JSON, keeps the small scalar fields (port, tool, frame...) whole, and says how to ask for less.
 */
export function truncateAnswer(
  json: Record<string, unknown>,
  maxChars: number,
): { json: Record<string, unknown>; text: string } {
  const text = JSON.stringify(json);
  if (text.length <= maxChars) return { json, text };
  const keep: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(json)) {
    if (v === null || typeof v !== 'object') {
      const s = JSON.stringify(v);
      if (s && s.length < 200) keep[k] = v;
    }
  }
  let paths = pathsToAskFor(json);
  const cut = (budget: number) => {
    const out = {
      ...keep,
      truncated: true,
      note:
        `Answer cut to about ${maxChars} of ${text.length} characters. Ask for less: get_state {path: "game.someKey"} ` +
        'reads one part of the state; "paths" lists what is there.',
      paths,
      preview: text.slice(0, budget),
    };
    return { json: out, text: JSON.stringify(out) };
  };
  // The preview is escaped again inside the answer (quotes, backslashes): shrink until it fits.
  let budget = maxChars;
  let out = cut(budget);
  while (out.text.length > maxChars && budget > 0) {
    budget = Math.max(0, budget - (out.text.length - maxChars) - 16);
    out = cut(budget);
  }
  while (out.text.length > maxChars && paths.length) {
    paths = paths.slice(0, Math.floor(paths.length / 2));
    out = cut(0);
  }
  return out;
}

export function okResult(answer: ToolAnswer, limit: number): CallToolResult {
  const maxChars = answer.whole ? limit * 4 : limit;
  const { json, text: jsonText } = truncateAnswer(answer.json, maxChars);
  const text =
    answer.text === undefined
      ? jsonText
      : answer.text.length <= maxChars
        ? answer.text
        : answer.text.slice(0, Math.max(0, maxChars - 120)) +
          '\n… (cut: the answer is longer than the limit; filter it with role or name)';
  const content: CallToolResult['content'] = [{ type: 'text', text }];
  for (const img of answer.images ?? []) content.push({ type: 'image', data: img.data, mimeType: img.mimeType });
  return { content, structuredContent: json };
}

/** A failure as the agent sees it: the class-first text, and the error's facts as structuredContent. */
export function errorResult(e: unknown, maxChars: number, log?: (line: string) => void): CallToolResult {
  const err = toBridgeError(e, log);
  const { json } = truncateAnswer({ ...err.data }, maxChars);
  return { content: [{ type: 'text', text: err.text }], structuredContent: json, isError: true };
}
