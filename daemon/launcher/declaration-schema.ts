/**
 * gamebridge.json as a zod schema: its fields, their defaults, and what each is for (the
 * descriptions are what an editor shows on hover and what an error adds to "is missing"). The
 * build writes it as a JSON Schema (dist/gamebridge.schema.json, declaration-schema-build.ts)
 * that `init` references in `"$schema"`. What the schema cannot know (a folder exists, a module
 * is trustworthy) is checked after it, in declaration.ts.
 */
import { z } from 'zod/v4';
import { parsePortList } from '../../shared/config.js';

export const DEFAULT_READY_TIMEOUT_MS = 60000;
/** Used when a declaration names no portRange (the range docs/LAUNCHING.md shows). */
export const DEFAULT_PORT_RANGE = '7820-7839';
/** The JSON Schema's file name, in the package's dist/. */
export const SCHEMA_FILE = 'gamebridge.schema.json';

const RANGE_HINT = 'give a range like "7820-7839"';
const isBlank = (s: string) => !s.trim();

const envSchema = z
  .record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string' }).transform((v) => String(v)),
  )
  .describe("Variables laid over the client's environment; values may hold {port}, {index} and ${NAME}");

const readyTimeout = z.number().positive().describe('How long the game may take to answer /health, in milliseconds');

export const profileSchema = z
  .strictObject({
    args: z.string().optional().describe('Appended to launch.command; may hold {port} and {index}'),
    env: envSchema.optional(),
    readyTimeoutMs: readyTimeout.optional(),
  })
  .describe('A named variant of launch.command, started with launch_instance {profile}');

/** A web field: a non-empty string, or null for none. */
const webText = (description: string) =>
  z
    .string()
    .refine((s) => !isBlank(s), 'must be a non-empty string or null')
    .nullable()
    .optional()
    .describe(description);

const MAX_SEED_CHARS = 200;
const SEED_RULE = `must be a string or a whole number (up to ${MAX_SEED_CHARS} characters), e.g. 42`;

/** What the fields of launch.web say together, when they do not fit: the field (none: the object) and why. */
function webProblem(web: {
  static?: string | null;
  command?: string | null;
  url?: string | null;
  state?: string | null;
  kit: boolean;
}): { field?: 'url' | 'state'; why: string } | undefined {
  if (web.command && web.static)
    return {
      why: 'names both "command" and "static": give one (a folder the bridge serves, or a server your tooling runs)',
    };
  if (!web.command && !web.static)
    return {
      why: 'needs "static" (a folder to serve, e.g. "dist") or "command" (a server, with {webPort} where its port goes)',
    };
  if (web.command && !web.url)
    return {
      field: 'url',
      why: 'is missing: say where the command serves the page, e.g. "http://127.0.0.1:{webPort}/"',
    };
  if (web.command && web.url && !/^https?:\/\//.test(web.url))
    return { field: 'url', why: `is ${JSON.stringify(web.url)}: with a command it must be a full http URL` };
  if (web.state && web.kit)
    return {
      field: 'state',
      why: 'reads the state of a page without the kit ("kit": false); a page with the kit publishes its own snapshot',
    };
  return undefined;
}

const webSchema = z
  .strictObject({
    static: webText('A folder the bridge serves (relative to this file), e.g. "dist"'),
    command: webText('A server your tooling runs instead, with {webPort} where its port goes'),
    url: webText('Where the page is: a full URL (may hold {webPort}) with a command, or a path in the static folder'),
    headless: z.boolean().default(true).describe('false opens a browser window a person can watch'),
    seed: z
      .union([z.string(), z.int()], { error: SEED_RULE })
      .transform((v) => String(v))
      .refine((v) => v.length > 0 && v.length <= MAX_SEED_CHARS, SEED_RULE)
      .nullable()
      .optional()
      .describe("Seeds Math.random and crypto.getRandomValues before the page's scripts, e.g. 42"),
    state: webText('An expression evaluated in a page without the kit ("kit": false): its value is the state\'s game'),
    kit: z
      .boolean()
      .default(true)
      .describe('false: the page has no game kit; the bridge answers for it through the browser'),
  })
  .superRefine((web, ctx) => {
    const problem = webProblem(web);
    if (problem) ctx.addIssue({ code: 'custom', path: problem.field ? [problem.field] : [], message: problem.why });
  })
  .describe('A browser game: its page opened in Chromium. Give "static" or "command" (then "url")');

const portRange = z
  .union([z.string(), z.number(), z.array(z.union([z.number(), z.string()]))], {
    error: (iss) => `is ${JSON.stringify(iss.input)}: ${RANGE_HINT}`,
  })
  .default(DEFAULT_PORT_RANGE)
  .transform((pr, ctx) => {
    try {
      const ports = parsePortList(Array.isArray(pr) ? pr.join(',') : String(pr));
      if (ports.length) return ports;
      ctx.addIssue({ code: 'custom', message: `is empty: ${RANGE_HINT}` });
    } catch {
      ctx.addIssue({ code: 'custom', message: `is ${JSON.stringify(pr)}: ${RANGE_HINT}` });
    }
    return z.NEVER;
  })
  .describe('The ports launches may use, e.g. "7820-7839" or "7820,7825-7830"');

const launchSchema = z
  .strictObject(
    {
      command: z
        .string()
        .optional()
        .describe('The shell command that starts the game, with {port} where the debug port goes (not with "web")'),
      cwd: z.string().default('.').describe("Where the command runs, relative to this file's directory"),
      portRange,
      readyTimeoutMs: readyTimeout.default(DEFAULT_READY_TIMEOUT_MS),
      env: envSchema.default({}),
      profiles: z
        .record(z.string(), profileSchema)
        .optional()
        .describe('Named variants, e.g. a server and its clients'),
      web: webSchema.nullable().optional(),
    },
    {
      error: (iss) =>
        iss.input === undefined ? 'is missing: it must be an object with at least "command"' : undefined,
    },
  )
  .superRefine((launch, ctx) => {
    if (!launch.web && (launch.command === undefined || isBlank(launch.command)))
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'is missing: give the shell command that starts the game, with {port} where the debug port goes',
      });
  })
  .describe('How the game is started');

export const declarationSchema = z
  .strictObject(
    {
      $schema: z.string().optional().describe("This file's JSON Schema, for editors"),
      name: z.string().optional().describe("The game's name, as the bridge shows it"),
      launch: launchSchema,
      composites: z
        .string()
        .min(1, "must be a path (relative to the file's directory)")
        .optional()
        .describe("A module of routines that chain several commands, relative to this file's directory"),
    },
    { error: (iss) => (iss.code === 'invalid_type' ? 'must be a JSON object' : undefined) },
  )
  .describe('How game-bridge-mcp launches this game (docs/CONTRACT.md, "gamebridge.json")');

export type DeclarationFields = z.output<typeof declarationSchema>;
export type WebFields = z.output<typeof webSchema>;

/** The JSON Schema an editor reads: the input side (defaults shown, nothing transformed). */
export function declarationJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(declarationSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
