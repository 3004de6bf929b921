/* eslint-disable max-lines -- the whole error taxonomy: every class an agent can meet and how it is built, in one place */
/**
 * The one error taxonomy. Every failure an agent can see is a BridgeError whose text starts
 * with its class name and ends with what to do next. Tools turn it into a result with
 * `isError: true` whose structuredContent is the error's data (its facts, keyed by `kind`);
 * JSON-RPC errors (shared/jsonrpc.ts) are kept for malformed protocol traffic only. The classes and their texts
 * are listed for agents in README.md ("Troubleshooting by error class") and docs/TOOLS.md ("errors"); BridgeInternalError in docs/DECISIONS.md.
 */
export const ERROR_CLASSES = [
  'GameOffline',
  'NotAGameSurface',
  'CommandTimeout',
  'CommandRejected',
  'CapabilityMissing',
  'CommandFailed',
  'BridgeUsageError',
  'LaunchFailed',
  'ChromiumMissing',
  'FfmpegMissing',
  'NotLaunchedHere',
  'CallInterrupted',
  'BridgeInternalError',
  'GameExited',
  'AssertionFailed',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** The machine-readable facts each class carries, beside its text. */
interface ErrorFacts {
  GameOffline: { port: number; /** it accepted the connection but did not answer in time */ timeout?: true };
  NotAGameSurface: { port: number; detail: string };
  CommandTimeout: { port: number; cmd?: string; timeoutMs: number; path?: string; lastValue?: unknown; frame?: number };
  CommandRejected: { port: number; cmd: string; reason: string; known: string[] };
  CapabilityMissing: { port: number; tool: string; capability: string; declared: string[] };
  CommandFailed: CommandFailedFacts;
  BridgeUsageError: UsageFacts;
  NotLaunchedHere: { port: number };
  CallInterrupted: object;
  BridgeInternalError: object;
  GameExited: ExitFacts;
  LaunchFailed: LaunchFacts;
  ChromiumMissing: { port?: number };
  FfmpegMissing: { port: number };
  AssertionFailed: { port: number; path: string; expected: string; actual: unknown; frame?: number };
}

/** A command the game applied and reported failed (`commandResults`): its words, and the state after it. */
export interface CommandFailedFacts {
  port: number;
  cmd: string;
  commandId: number;
  applied: false;
  /** the game's own words */
  reason: string;
  frame?: number;
  sessionEpoch?: number;
  screen?: string;
  game?: unknown;
  events: string[];
}

/** What is known of a launched game that exited by itself (docs/LAUNCHING.md). */
export interface ExitFacts {
  port: number;
  /** the game's own pid */
  pid: number;
  name: string;
  profile?: string;
  index?: number;
  /** the game's own; both null when it could not be read */
  exitCode: number | null;
  signal: string | null;
  /** a wrapper that launched the game (make, npm, a shell that ran more after it) and what it reported: not the game's status */
  wrapper?: { pid: number; exitCode: number | null; signal: string | null };
  /** null: it died while no daemon watched it (then aliveAt: when one last knew it running) */
  exitedAt: string | null;
  aliveAt?: string;
  /** how long it ran (a lower bound when exitedAt is null) */
  uptimeMs: number;
  /** the last command it confirmed through the bridge */
  lastCommand?: { id?: number; command: string; at: string };
  /** its last lines of output, and where the rest is */
  lastLines: string[];
  logFile: string;
}

/** A launch that failed: its process, command, exit code, signal, log and whether it was cancelled. */
export interface LaunchFacts {
  port?: number;
  pid?: number;
  command?: string;
  cwd?: string;
  exitCode?: number | null;
  signal?: string | null;
  logFile?: string;
  timeoutMs?: number;
  cancelled?: boolean;
  /** a launch of several that failed as a whole: how many, which one failed, what was stopped */
  count?: number;
  failedIndex?: number;
  reaped?: string[];
  /** another process listened on the launch's port: who, as far as the bridge may see */
  heldBy?: { pid: number; uid?: number; user?: string; program?: string }[];
  /** the port `heldBy` holds when it is not `port`: the {webPort} of a page's server */
  heldPort?: number;
  /** every port the launch was tried on, when another process took them one after another */
  portsTried?: number[];
}

/** What a usage error may point at: the argument, file or field to fix. */
export interface UsageFacts {
  port?: number;
  file?: string;
  /** the line of `file` at fault (a test file's malformed line) */
  line?: number;
  field?: string;
  /** the directories searched for gamebridge.json, when none was found */
  looked?: string[];
  /** a declaration not believed: the file or directory that is not trusted */
  refused?: string;
  /** launch_instance {config} outside the session's project */
  config?: string;
  project?: string;
  /** a launch profile that does not exist, and the ones that do */
  profile?: string;
  known?: string[];
  /** a UI node refused before anything was sent: the ref, and the nodes named like it */
  ref?: string;
  similar?: string[];
}

/** An error's data: `kind` says which class, and which facts come with it. */
export type ErrorData = { [K in ErrorClass]: { kind: K } & ErrorFacts[K] }[ErrorClass];

export class BridgeError extends Error {
  constructor(
    /** machine-readable facts (port, known commands, log path, ...), sent as structuredContent */
    readonly data: ErrorData,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = data.kind;
  }

  get kind(): ErrorClass {
    return this.data.kind;
  }

  /** The text an agent reads: `Class: what happened. What to do next.` */
  get text(): string {
    return `${this.kind}: ${this.message}`;
  }
}

export function isBridgeError(e: unknown): e is BridgeError {
  return e instanceof BridgeError;
}

/** A GameOffline that came from a timeout (something listens but does not answer), not a refused connection. */
export function isTimeout(e: unknown): boolean {
  return isBridgeError(e) && e.data.kind === 'GameOffline' && e.data.timeout === true;
}

const url = (port: number) => `http://127.0.0.1:${port}`;

export function gameOffline(
  port: number,
  launchHint?: string,
  timedOutMs?: number,
  route = '/health',
  why?: 'exited',
): BridgeError {
  const how = launchHint
    ? `Start it with \`${launchHint.replaceAll('{port}', String(port))}\`, or call launch_instance`
    : 'Start the game with its debug port flag, or call launch_instance (it reads gamebridge.json)';
  const what =
    why === 'exited'
      ? `The game on ${url(port)} dropped the connection during GET ${route} and no longer answers: it exited or crashed.`
      : timedOutMs === undefined
        ? `No game is answering on ${url(port)}.`
        : `No game answered GET ${route} on ${url(port)} within ${timedOutMs}ms (it may be frozen or overloaded).`;
  return new BridgeError(
    timedOutMs === undefined ? { kind: 'GameOffline', port } : { kind: 'GameOffline', port, timeout: true },
    `${what} ${how}; call list_instances to see which ports have a game.`,
  );
}

export function notAGameSurface(port: number, detail: string): BridgeError {
  return new BridgeError(
    { kind: 'NotAGameSurface', port, detail },
    `Something is listening on ${url(port)}, but it is not a debuggable game: ${detail}. ` +
      'Check the port (list_instances shows which ports hold a game) or start the game with its debug flag.',
  );
}

export function commandTimeout(cmd: string, port: number, ms: number, detail = ''): BridgeError {
  return new BridgeError(
    { kind: 'CommandTimeout', port, cmd, timeoutMs: ms },
    `Command '${cmd}' was queued on port ${port} but was not applied within ${ms}ms${detail}. ` +
      'The game may be paused, frozen or busy: read get_state or health before retrying, or raise --timeout.',
  );
}

/** wait_for's condition did not hold in time: the last value seen says how far off it was. */
export function waitTimeout(
  port: number,
  path: string,
  condition: string,
  ms: number,
  lastValue: unknown,
  frame?: number,
): BridgeError {
  return new BridgeError(
    { kind: 'CommandTimeout', port, path, timeoutMs: ms, lastValue, ...(frame !== undefined ? { frame } : {}) },
    `wait_for ${path} ${condition} did not hold within ${ms}ms on port ${port}; ` +
      `last value: ${lastValue === undefined ? 'missing' : JSON.stringify(lastValue).slice(0, 200)}${frame !== undefined ? ` at frame ${frame}` : ''}. ` +
      'Check the path with get_state, or raise timeoutMs.',
  );
}

/** The game refused a command. `detail` replaces the default wording (call_tool adds what else it accepts). */
export function commandRejected(
  cmd: string,
  port: number,
  reason: string,
  known?: string[],
  text?: string,
): BridgeError {
  const knownText = known && known.length ? ` The game accepts: ${known.join(', ')}.` : '';
  return new BridgeError(
    { kind: 'CommandRejected', port, cmd, reason, known: known ?? [] },
    text ??
      `The game on port ${port} rejected '${cmd}': ${reason || 'no reason given'}.${knownText} ` +
        'Check the name and arguments with describe_toolset.',
  );
}

/**
 * A bridge tool needs something of its game (a capability: held inputs, a clock, a UI tree…)
 * that the game lacks, so nothing was sent. `text` says what the game lacks and what to do
 * instead; without it, the next step is to see what the game offers.
 */
export function capabilityMissing(
  port: number,
  tool: string,
  capability: string,
  declared: string[],
  text?: string,
): BridgeError {
  return new BridgeError(
    { kind: 'CapabilityMissing', port, tool, capability, declared },
    text ??
      `${tool} needs the game's "${capability}" capability, and the game on port ${port} declares ${declared.length ? declared.map((c) => `"${c}"`).join(', ') : 'none'}. ` +
        'Nothing was sent; list_toolsets shows what this game offers.',
  );
}

/** The game applied the command on its own thread and it failed there: nothing is retried, the game's words are the reason. */
export function commandFailed(facts: Omit<CommandFailedFacts, 'applied'>): BridgeError {
  return new BridgeError(
    { kind: 'CommandFailed', applied: false, ...facts },
    `The game on port ${facts.port} refused '${facts.cmd}' (command ${facts.commandId}) when it applied it: ${facts.reason || 'no reason given'}. ` +
      'Nothing was done; read the state (snapshot or get_state) to see why, then act on what is there.',
  );
}

export function usageError(message: string, facts: UsageFacts = {}, cause?: unknown): BridgeError {
  return new BridgeError({ kind: 'BridgeUsageError', ...facts }, message, cause === undefined ? undefined : { cause });
}

/** What an agent whose assert failed can do next; a saved test's runner says its own next step instead. */
export const ASSERTION_NEXT_STEP = 'Read more of the state with get_state, or wait for it with wait_for.';

/** A check of the state now (assert) that does not hold: the path, the condition and what is there. */
export function assertionFailed(
  port: number,
  path: string,
  expected: string,
  actual: unknown,
  frame?: number,
): BridgeError {
  const shown = actual === undefined ? 'nothing (the path is absent)' : JSON.stringify(actual)?.slice(0, 300);
  return new BridgeError(
    {
      kind: 'AssertionFailed',
      port,
      path,
      expected,
      actual: actual ?? null,
      ...(frame !== undefined ? { frame } : {}),
    },
    `On port ${port}, ${path} is ${shown}${frame !== undefined ? ` at frame ${frame}` : ''}; expected ${expected}. ` +
      ASSERTION_NEXT_STEP,
  );
}

/** A launch that failed (the process exited, never answered, was cancelled): what ran, where, and its log. */
export function launchFailed(message: string, facts: LaunchFacts, cause?: unknown): BridgeError {
  return new BridgeError({ kind: 'LaunchFailed', ...facts }, message, cause === undefined ? undefined : { cause });
}

/** A browser game needs Chromium, and the one named or on PATH is not there. */
export function chromiumMissing(message: string, port?: number): BridgeError {
  return new BridgeError(port === undefined ? { kind: 'ChromiumMissing' } : { kind: 'ChromiumMissing', port }, message);
}

/** A filmstrip is composed by ffmpeg, and none is on PATH. */
export function ffmpegMissing(port: number, tool: string): BridgeError {
  return new BridgeError(
    { kind: 'FfmpegMissing', port },
    `${tool} composes its filmstrip with ffmpeg, and none is on PATH. Install it (Debian/Ubuntu: sudo apt-get install -y ffmpeg), ` +
      'or call it without a filmstrip and take screenshots instead.',
  );
}

export function notLaunchedHere(port: number): BridgeError {
  return new BridgeError(
    { kind: 'NotLaunchedHere', port },
    `The game on port ${port} was not launched by this bridge, so stop_instance will not kill it. ` +
      `Ask the game to close itself: call_tool {port: ${port}, name: "raw_command", arguments: {cmd: "close"}}.`,
  );
}

/** stop_instance on a port where no game answers and none launched here is on record. */
export function nothingRunning(port: number): BridgeError {
  return new BridgeError(
    { kind: 'GameOffline', port },
    `Nothing is running on port ${port}, so there is nothing to stop. list_instances shows the ports that have a game.`,
  );
}

export function callInterrupted(
  what: string,
  detail = 'the bridge daemon restarted while it was in flight',
): BridgeError {
  return new BridgeError(
    { kind: 'CallInterrupted' },
    `${what} was interrupted: ${detail}. It may or may not have been applied; ` +
      'read the state (get_state) before retrying.',
  );
}

/**
 * A game this bridge launched has exited (crashed, was killed, quit). `sentence` says how, when,
 * after how long and what it last applied; the next step follows, then its last output lines.
 */
export function gameExited(facts: ExitFacts, sentence: string): BridgeError {
  const { port } = facts;
  return new BridgeError(
    { kind: 'GameExited', ...facts },
    `${sentence} Next: launch_instance {restart: ${port}} starts it again on the same port; instance_log {port: ${port}} reads its output (${facts.logFile}).` +
      `\nLast output:\n${facts.lastLines.length ? facts.lastLines.join('\n') : '(the game wrote nothing)'}`,
  );
}

/**
 * Any thrown value → BridgeError. A value that is not one is a bug in the bridge, not the
 * caller's mistake: it becomes BridgeInternalError (the original kept as `cause`) and is
 * logged with its stack, so the daemon log shows where it came from.
 */
export function toBridgeError(
  e: unknown,
  log: (line: string) => void = (l) => process.stderr.write(l + '\n'),
): BridgeError {
  if (isBridgeError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  log(`unexpected error (a bug): ${e instanceof Error && e.stack ? e.stack : msg}`);
  return new BridgeError(
    { kind: 'BridgeInternalError' },
    `${msg}. This is a bug in game-bridge-mcp, not in the call: retry once, and if it repeats, the daemon log (the CLI's status command shows where) has the details.`,
    { cause: e },
  );
}
