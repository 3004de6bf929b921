/** What list_instances and launch_instance answer (docs/TOOLS.md is written from these). */
import { z } from './fields.js';
import { momentShape } from './moment.js';

/** What a launched game that exited left behind: list_instances' `exited[]`, instance_log's `exited`. */
export const exitRecord = z
  .object({
    port: z.number().optional().describe('the port it had *(when a launched game exited)*'),
    pid: z.number().optional().describe('its pid *(when a launched game exited)*'),
    game: z.string().optional().describe('its name *(when a launched game exited)*'),
    version: z.string().optional().describe('its version *(when a launched game exited and said it)*'),
    how: z
      .string()
      .optional()
      .describe('`exited with code N`, `killed by signal SIG…` *(when a launched game exited)*'),
    exitCode: z.unknown().optional().describe('its exit code, or null *(when a launched game exited)*'),
    signal: z
      .string()
      .nullable()
      .optional()
      .describe('the signal that ended it, or null *(when a launched game exited)*'),
    wrapper: z
      .unknown()
      .optional()
      .describe(
        "`{pid, exitCode, signal}` of a wrapper it ran under (make, npm, a shell), which are not the game's own *(when there was one)*",
      ),
    exitedAt: z
      .string()
      .nullable()
      .optional()
      .describe('when (ISO time), or null when no daemon was watching *(when a launched game exited)*'),
    aliveAt: z
      .unknown()
      .optional()
      .describe('when a daemon last knew it running *(when it exited while no daemon watched)*'),
    uptimeMs: z.number().optional().describe('how long it ran *(when a launched game exited)*'),
    lastCommand: z
      .unknown()
      .optional()
      .describe('the last command it confirmed through the bridge *(when there was one)*'),
    lastLines: z.array(z.string()).optional().describe('its last lines of output *(when a launched game exited)*'),
    logFile: z.string().optional().describe('its whole output *(when a launched game exited)*'),
    facts: z.string().optional().describe('the same facts as one sentence *(when a launched game exited)*'),
    next: z.string().optional().describe('what to do: relaunch or read its log *(when a launched game exited)*'),
    owner: z.string().optional().describe('`you`, `another session`, or `detached` *(when a launched game exited)*'),
    profile: z.unknown().optional().describe('its launch profile *(when it had one)*'),
    index: z.unknown().optional().describe('its index in a `count` launch *(when it had one)*'),
  })
  .loose();

/** What list_instances answers. */
export const listInstancesAnswer = z
  .object({
    registryDir: z.string().describe('the directory games register themselves in (`<home>/instances`)'),
    live: z
      .array(
        z
          .object({
            port: z.number().describe("the game's debug port on 127.0.0.1"),
            discovery: z
              .string()
              .describe(
                'how it was found: `registry` (it registered itself), `scan` (the scan range, or launched by this daemon), `both`',
              ),
            status: z
              .string()
              .describe(
                '`live`; `live-web-page` for a page without the kit, played through the browser (list_toolsets says what it offers); `live-no-manifest` when a game publishes no command list',
              ),
            game: z.string().nullable().describe('its name (from `/tools` or its registry entry)'),
            version: z.string().nullable().optional().describe('its version *(when it says)*'),
            protocol: z.number().nullable().optional().describe('the contract version it speaks *(when it says)*'),
            manifest: z
              .string()
              .describe('where its command list came from: `game`, `file` (`--manifest`), `fallback`'),
            pid: z.number().nullable().optional().describe('its process id *(when known: registry or launch)*'),
            cwd: z.string().nullable().optional().describe('its working directory *(when known)*'),
            screen: z.string().nullable().optional().describe('`ui.screen` of its state *(when it publishes one)*'),
            frame: z.number().nullable().optional().describe('its frame counter *(when it publishes one)*'),
            toolsets: z.array(z.string()).describe('names of its toolsets, `bridge` included'),
            launchedByThisBridge: z.boolean().describe('true when this daemon launched it'),
            started: z.string().optional().describe('when it started (ISO time) *(when known)*'),
            owner: z
              .string()
              .optional()
              .describe('for launched games: `you`, `another session`, or `detached` *(when launched by this daemon)*'),
            profile: z
              .unknown()
              .optional()
              .describe('the launch profile it was started with *(when launched with one)*'),
            index: z.unknown().optional().describe('its index in a `count` launch *(when launched with count)*'),
            held: z
              .unknown()
              .optional()
              .describe(
                'inputs held down on it: `input`, `owner` (`you` or `another session`), `leaseMsLeft`, `via: "browser"` for a page\'s real keys *(when any are held)*',
              ),
            warnings: z.unknown().optional().describe('what could not be read about it *(when something failed)*'),
          })
          .loose(),
      )
      .describe('games that answer: found in the registry, in the scan range, or launched by this daemon'),
    stale: z
      .array(
        z
          .object({
            port: z.unknown().optional().describe('the port the entry names *(when there is one)*'),
            pid: z.unknown().optional().describe('the pid the entry names *(when there is one)*'),
            file: z.unknown().optional().describe("the entry's file *(when there is one)*"),
            detail: z
              .unknown()
              .optional()
              .describe('why it counts as stale, when the port is not simply silent *(when there is one)*'),
            pruned: z.boolean().optional().describe('true when `prune: true` deleted it *(when there is one)*'),
          })
          .loose(),
      )
      .describe('registry entries whose process is gone *(entries listed only)*'),
    notAGame: z
      .array(
        z
          .object({
            port: z.unknown().optional().describe('the port *(when there is one)*'),
            detail: z.unknown().optional().describe('what it answered *(when there is one)*'),
          })
          .loose(),
      )
      .describe('ports where something answers that is not a game *(ports listed only)*'),
    free: z.array(z.number()).describe('ports of the scan range where nothing listens'),
    skippedRegistryFiles: z
      .unknown()
      .optional()
      .describe('registry files that could not be read and were left alone *(when there were any)*'),
    exited: z
      .array(exitRecord)
      .describe('games this daemon launched that exited by themselves, until relaunched or stopped'),
  })
  .loose();

/** What launch_instance says of each game it launched. */
const launchedShape = {
  port: z.number().optional().describe('the port it listens on'),
  pid: z.number().optional().describe("the game's own process id (not a shell's)"),
  name: z.string().optional().describe('its name, from `/tools` or gamebridge.json'),
  version: z.string().optional().describe('its version *(when it says)*'),
  cwd: z.string().optional().describe('the directory it runs in'),
  readyInMs: z.number().optional().describe('how long until `/health` answered'),
  logFile: z.string().optional().describe('where its output goes (`instance_log` reads it)'),
  profile: z.unknown().optional().describe('the launch profile used *(when given)*'),
  index: z.number().optional().describe('its index *(when launched with count or restarted from one)*'),
  paused: z
    .boolean()
    .optional()
    .describe(
      "true: the game's clock is paused, as `paused: true` asked; false: the game did not start paused *(when launched with `paused`)*",
    ),
  simFrame: z
    .number()
    .optional()
    .describe(
      "the game's simFrame once ready: 0 when it started paused *(when launched with `paused` and the game reports one)*",
    ),
  pausedNote: z
    .unknown()
    .optional()
    .describe(
      'why it runs and how to pause it: its kit does not read `GAME_BRIDGE_START_PAUSED` *(when launched with `paused` and it did not start paused)*',
    ),
};

/** What launch_instance answers. */
export const launchInstanceAnswer = z
  .object({
    ...launchedShape,
    seed: z
      .unknown()
      .optional()
      .describe(
        "the page's seed for `Math.random` and `crypto`: `seed`, else `launch.web.seed`, else one the bridge picked *(when a browser game)*",
      ),
    portsTaken: z
      .unknown()
      .optional()
      .describe(
        'ports another process took between the bridge choosing them and the game binding them; the launch went on to the next free port *(when that happened)*',
      ),
    previous: z
      .object({
        pid: z.number().optional().describe("that process's pid *(when `restart`)*"),
        how: z.string().optional().describe('how it ended: stopped, or had already exited *(when `restart`)*'),
      })
      .loose()
      .optional()
      .describe('the process it replaced *(when `restart`)*'),
    ...momentShape('when `to: "here"`'),
    next: z.string().optional().describe('what to call next *(when one game)*'),
    count: z.number().optional().describe('how many were launched *(when count)*'),
    instances: z
      .array(z.object(launchedShape).loose())
      .optional()
      .describe('one item per game, with the fields above *(when count)*'),
  })
  .loose();
