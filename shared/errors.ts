/**
 * The one error taxonomy (SPEC §5). Every failure an agent can see is a BridgeError whose text
 * starts with its class name and ends with what to do next. Tools turn it into a result with
 * `isError: true`; JSON-RPC errors are kept for malformed protocol traffic only.
 */
export type ErrorClass =
  | 'GameOffline'
  | 'NotAGameSurface'
  | 'CommandTimeout'
  | 'CommandRejected'
  | 'BridgeUsageError'
  | 'NotLaunchedHere'
  | 'CallInterrupted'
  | 'GameExited';

export class BridgeError extends Error {
  constructor(
    readonly kind: ErrorClass,
    message: string,
    /** Extra machine-readable facts (port, known commands, log path, ...). */
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = kind;
  }

  /** The text an agent reads: `Class: what happened. What to do next.` */
  get text(): string {
    return `${this.kind}: ${this.message}`;
  }
}

export function isBridgeError(e: unknown): e is BridgeError {
  return e instanceof BridgeError;
}

const url = (port: number) => `http://127.0.0.1:${port}`;

export function gameOffline(port: number, launchHint?: string, timedOutMs?: number, route = '/health'): BridgeError {
  const how = launchHint
    ? `Start it with \`${launchHint.replaceAll('{port}', String(port))}\`, or call launch_instance`
    : 'Start the game with its debug port flag, or call launch_instance (it reads gamebridge.json)';
  const what = timedOutMs === undefined ? `No game is answering on ${url(port)}.` : `No game answered GET ${route} on ${url(port)} within ${timedOutMs}ms (it may be frozen or overloaded).`;
  return new BridgeError('GameOffline', `${what} ${how}; call list_instances to see which ports have a game.`, timedOutMs === undefined ? { port } : { port, timeout: true });
}

export function notAGameSurface(port: number, detail: string): BridgeError {
  return new BridgeError(
    'NotAGameSurface',
    `Something is listening on ${url(port)}, but it is not a debuggable game: ${detail}. ` +
      'Check the port (list_instances shows which ports hold a game) or start the game with its debug flag.',
    { port, detail },
  );
}

export function commandTimeout(cmd: string, port: number, ms: number, detail = ''): BridgeError {
  return new BridgeError(
    'CommandTimeout',
    `Command '${cmd}' was queued on port ${port} but was not applied within ${ms}ms${detail}. ` +
      'The game may be paused, frozen or busy: read get_state or health before retrying, or raise --timeout.',
    { port, cmd, timeoutMs: ms },
  );
}

export function commandRejected(cmd: string, port: number, reason: string, known?: string[]): BridgeError {
  const knownText = known && known.length ? ` The game accepts: ${known.join(', ')}.` : '';
  return new BridgeError(
    'CommandRejected',
    `The game on port ${port} rejected '${cmd}': ${reason || 'no reason given'}.${knownText} ` +
      'Check the name and arguments with describe_toolset.',
    { port, cmd, reason, known: known ?? [] },
  );
}

export function usageError(message: string, data: Record<string, unknown> = {}): BridgeError {
  return new BridgeError('BridgeUsageError', message, data);
}

export function notLaunchedHere(port: number): BridgeError {
  return new BridgeError(
    'NotLaunchedHere',
    `The game on port ${port} was not launched by this bridge, so stop_instance will not kill it. ` +
      `Ask the game to close itself: call_tool {port: ${port}, name: "raw_command", arguments: {cmd: "close"}}.`,
    { port },
  );
}

export function callInterrupted(what: string, detail = 'the bridge daemon restarted while it was in flight'): BridgeError {
  return new BridgeError(
    'CallInterrupted',
    `${what} was interrupted: ${detail}. It may or may not have been applied; ` +
      'read the state (get_state) before retrying.',
  );
}

/**
 * A game this bridge launched has exited (crashed, was killed, quit): `facts` says how, when,
 * after how long and what it last applied; its last output lines follow the next step.
 */
export function gameExited(port: number, facts: string, logFile: string, lastLines: string[], data: Record<string, unknown> = {}): BridgeError {
  return new BridgeError(
    'GameExited',
    `${facts} Next: launch_instance {restart: ${port}} starts it again on the same port; instance_log {port: ${port}} reads its output (${logFile}).` +
      `\nLast output:\n${lastLines.length ? lastLines.join('\n') : '(the game wrote nothing)'}`,
    { ...data, port },
  );
}

/** Any thrown value → BridgeError (unknown failures become BridgeUsageError with their message). */
export function toBridgeError(e: unknown): BridgeError {
  if (isBridgeError(e)) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return usageError(`${msg}. This is unexpected; the daemon log (game-bridge-mcp status) may say more.`);
}
