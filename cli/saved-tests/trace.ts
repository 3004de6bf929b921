/**
 * `game-bridge-mcp test --trace on|retain-on-failure|off` (docs/TESTS.md, "Traces"): while a test
 * runs, each step goes into a trace (shared/trace.ts) with the state and the game's screenshot
 * after it; when the test is over the trace is written as one HTML file in the report folder's
 * `traces/`, or, with `retain-on-failure`, only when the test failed. Tracing never fails a
 * test: a state or screenshot it cannot read is noted in the step.
 */
import { relative } from 'node:path';
import { TraceBuilder, type StepInput } from '../../shared/trace.js';
import { isScreenshot, type Condition, type TestFile } from '../../shared/test-file.js';
import { ToolFailed, type Json } from './driver.js';
import type { Game } from './game.js';

export const TRACE_MODES = ['on', 'retain-on-failure', 'off'] as const;
export type TraceMode = (typeof TRACE_MODES)[number];

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** One test run's trace. */
export class TestTrace {
  readonly builder: TraceBuilder;
  private readonly t0 = Date.now();
  /** why this game gives no screenshots (asked once; a game without them is not asked again) */
  private noShots?: string;

  constructor(
    readonly file: string,
    name: string,
  ) {
    this.builder = new TraceBuilder({ title: name, source: relative(process.cwd(), file) || file });
  }

  /** The launch as the first step: the whole state the test starts from. */
  async launched(game: Game, config: string, profile?: string): Promise<void> {
    const s0 = Date.now();
    const title = `launch ${relative(process.cwd(), config) || config}${profile ? ` (profile ${profile})` : ''}`;
    await this.add(game, { kind: 'launch', title, ok: true, atMs: s0 - this.t0 }, s0);
  }

  /** A step done (or failed): its call, its answer or error, the state and picture after it. */
  async step(
    game: Game,
    s: TestFile['steps'][number],
    title: string,
    s0: number,
    outcome: { answer?: Json; error?: string },
  ): Promise<void> {
    const path = s.kind === 'expect' && !isScreenshot(s.expect) ? (s.expect as Condition).path : undefined;
    const input: StepInput = {
      kind: s.kind === 'do' ? 'do' : 'expect',
      // the list puts the frame a step began at after every title, so the file's `@N` is not repeated
      title: s.kind === 'do' && s.atSimFrame !== undefined ? title.replace(/ @\d+$/, '') : title,
      ...(s.kind === 'do' && s.atSimFrame !== undefined ? { fromSimFrame: s.atSimFrame } : {}),
      ...(path !== undefined ? { checkPath: path } : {}),
      ok: outcome.error === undefined,
      line: s.line,
      ...(s.kind === 'do' ? { call: { name: s.name, arguments: s.arguments } } : {}),
      ...(outcome.answer !== undefined ? { answer: outcome.answer } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      atMs: s0 - this.t0,
      ms: Date.now() - s0,
    };
    await this.add(game, input, s0);
  }

  private async add(game: Game, input: StepInput, _s0: number): Promise<void> {
    let state: Json | undefined;
    try {
      state = (await game.driver.game(game.port, 'get_state')).state as Json | undefined;
    } catch {
      state = undefined;
    }
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    input.simFrame ??= num(state?.simFrame);
    input.frame ??= num(state?.frame);
    let png: Buffer | undefined;
    if (!this.noShots)
      try {
        png = await game.driver.screenshot(game.port);
      } catch (e) {
        // a game without screenshots says so once; any other failure is this step's alone
        const text = e instanceof ToolFailed ? e.text : String((e as Error)?.message ?? e);
        if (/CapabilityMissing|does not implement GET \/screenshot|no image/.test(text))
          this.noShots = 'no screenshot: the game serves none';
        else this.builder.trace.note ??= `a screenshot failed: ${text.slice(0, 300)}`;
      }
    this.builder.add(input, state, png, this.noShots);
  }

  /** The trace as HTML, with the test's outcome and, for a failure, what the runner printed. */
  html(r: { name: string; ok: boolean; ms: number }, failureText: string): string {
    const t = this.builder.trace;
    t.outcome = r.ok ? 'passed' : 'failed';
    t.title = r.name;
    if (!r.ok) t.failure = failureText.replace(/^ {4}/gm, '');
    t.note = [t.note, `ran in ${secs(r.ms)}`].filter(Boolean).join('; ');
    return this.builder.html();
  }
}

/** A test's trace name, without `.trace.html`: its file's path as one name (`menu/open.jsonl`: `menu-open`). */
export function traceStem(testFile: string): string {
  const rel = relative(process.cwd(), testFile) || testFile;
  const flat = rel
    .replace(/\.jsonl$/, '')
    .replace(/^(\.\.[\\/])+/, '')
    .replace(/(^|[\\/])gamebridge-tests[\\/]/g, '$1')
    .replace(/[^\w.-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-150);
  return flat || 'test';
}
