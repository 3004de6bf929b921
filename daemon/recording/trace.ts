/**
 * A session's recording on one game as a trace (shared/trace.ts), the same page
 * `game-bridge-mcp test --trace` writes: the launch, every call with its answer, every check
 * with its outcome, each with the state command sync read after it (the newest steps keep
 * theirs) and its clocks, and last the game as it is when the trace is made, with its
 * screenshot when it serves one. save_trace writes it into the project; the dashboard hands it
 * to the browser as a download.
 */
import { conditionText, type Condition } from '../../shared/test-file.js';
import { TraceBuilder, type StepInput } from '../../shared/trace.js';
import { STATE_STEPS, type Recording } from './recordings.js';

export interface TraceNow {
  /** the game's state now (undefined: it did not answer) */
  state?: Record<string, unknown>;
  /** its screenshot now, when it serves one */
  png?: Buffer;
  /** why there is no screenshot */
  shotNote?: string;
}

export interface SessionTraceMeta {
  session: string;
  /** the client's name and version, as it introduced itself */
  client?: string;
  port: number;
  game?: { name: string; version?: string };
}

/** The call as the agent made it, in a line: `press {"input":"right","frames":30}`. */
const callTitle = (name: string, args: Record<string, unknown>) => {
  const { port: _p, ...rest } = args;
  return Object.keys(rest).length ? `${name} ${JSON.stringify(rest)}` : name;
};

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** The bridge does not render the game after an agent's every call (each call would pay for it). */
const NO_SHOT = 'no screenshot: the bridge takes one only when the trace is made (the last step)';

export function sessionTrace(rec: Recording, meta: SessionTraceMeta, now: TraceNow, at = new Date()): TraceBuilder {
  const steps = rec.steps.list();
  const t0 = rec.launch?.at ?? rec.startedAt;
  const kept = steps.filter((s) => s.state).length;
  const notes = [
    rec.steps.dropped ? `the recording had dropped its ${rec.steps.dropped} oldest steps` : '',
    steps.length > kept && kept >= STATE_STEPS ? `only the newest ${STATE_STEPS} steps keep their state` : '',
  ].filter(Boolean);
  const b = new TraceBuilder(
    {
      // A person looks for the game: the session's id is for telling two sessions apart, so it comes last, short.
      title: meta.game?.name ?? `The game on port ${meta.port}`,
      source: `${meta.client ?? 'a session'} on port ${meta.port} (session ${meta.session.slice(0, 8)})`,
      ...(meta.game ? { game: meta.game } : {}),
      ...(notes.length ? { note: notes.join('; ') } : {}),
    },
    new Date(t0),
  );
  if (rec.launch && !rec.steps.dropped)
    b.add(
      {
        kind: 'launch',
        title: `launch ${rec.launch.config}${rec.launch.profile ? ` (profile ${rec.launch.profile})` : ''}`,
        ok: true,
        atMs: 0,
      },
      undefined,
      undefined,
      NO_SHOT,
    );
  for (const s of steps) {
    // A call's recorded simFrame is the one it began at; the state kept after it says where it ended.
    const after = num(s.state?.simFrame);
    const clocks = {
      fromSimFrame: s.simFrame,
      simFrame: after ?? (s.kind === 'check' ? s.simFrame : undefined),
      frame: s.frame,
      atMs: Math.max(0, s.at - t0),
    };
    const input: StepInput =
      s.kind === 'do'
        ? {
            kind: 'do',
            title: callTitle(s.name, s.arguments),
            ok: true,
            call: { name: s.name, arguments: s.arguments },
            answer: s.answer,
            ...clocks,
          }
        : {
            kind: 'check',
            title: `${s.tool} ${typeof s.condition.path === 'string' ? conditionText(s.condition as Condition) : JSON.stringify(s.condition)}`,
            ok: s.held,
            call: { name: s.tool, arguments: s.condition },
            ...(s.detail ? { error: s.detail } : {}),
            ...(typeof s.condition.path === 'string' ? { checkPath: s.condition.path } : {}),
            ...clocks,
          };
    b.add(input, s.state, undefined, NO_SHOT);
  }
  b.add(
    {
      kind: 'check',
      title: 'the game when the trace was made',
      ok: now.state !== undefined,
      ...(now.state === undefined ? { error: 'the game did not answer for its state' } : {}),
      simFrame: num(now.state?.simFrame),
      frame: num(now.state?.frame),
      atMs: Math.max(0, at.getTime() - t0),
    },
    now.state,
    now.png,
    now.shotNote,
  );
  b.trace.outcome = 'recorded';
  return b;
}
