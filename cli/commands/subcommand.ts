/**
 * One subcommand as cli/cli.ts hands it to yargs: its usage, a builder for its flags and
 * examples, and what it runs. `run` answers the exit code (nothing: 0), so the commands stay
 * plain functions and the parser alone decides how the process ends. `subcommand()` makes one
 * from a declaration of what is the command's own (its flags as a yargs options object, its
 * examples), and the flag makers below say the kinds of flag the commands share.
 */
import type { ArgumentsCamelCase, Argv, InferredOptionTypes, Options, PositionalOptions } from 'yargs';
import { CLIENTS } from '../client-config.js';

export interface Subcommand<U = object> {
  /** the usage line, e.g. `logs <port>`; its first word is the command's name */
  command: string;
  describe: string;
  /** its flags and examples (cli.ts makes every subcommand strict: an unknown flag is a usage error) */
  builder(y: Argv): Argv<U>;
  run(a: ArgumentsCamelCase<U>): Promise<number | void>;
}

type Declared = Record<string, Options>;
type Args<P extends Declared, O extends Declared> = InferredOptionTypes<P> & InferredOptionTypes<O>;

/** What a subcommand declares; the rest (strict parsing, its usage line, how it exits) is cli.ts's. */
export interface CommandSpec<P extends Declared, O extends Declared> {
  command: string;
  describe: string;
  /** its positional arguments, as its usage line names them */
  positionals?: P;
  /** its flags, in the order its help lists them */
  options?: O;
  /** what it does with them; a command loads its module here, so the others never pay for it */
  run(a: ArgumentsCamelCase<Args<P, O>>): Promise<number | void>;
  /** its help's examples, printed by examples() */
  examples?: Array<[command: string, what: string]>;
  /** a line its help prints after the examples */
  epilogue?: string;
  /** what else its help says that the fields above do not, after its flags */
  builder?(y: Argv<Args<P, O>>): Argv<Args<P, O>>;
}

/** A subcommand from its declaration, with its argument types carried from its flags to `run`. */
export function subcommand<P extends Declared = Record<never, never>, O extends Declared = Record<never, never>>(
  spec: CommandSpec<P, O>,
): Subcommand<Args<P, O>> {
  return {
    command: spec.command,
    describe: spec.describe,
    builder(y) {
      let built = y as Argv<Args<P, O>>;
      for (const [name, positional] of Object.entries(spec.positionals ?? {}))
        built = built.positional(name, positional as PositionalOptions) as Argv<Args<P, O>>;
      built = built.options(spec.options ?? {}) as Argv<Args<P, O>>;
      if (spec.examples) built = built.epilogue(examples(...spec.examples));
      if (spec.epilogue) built = built.epilogue(spec.epilogue);
      return spec.builder ? spec.builder(built) : built;
    },
    run: (a) => spec.run(a),
  };
}

/** A flag that takes a text value (`--dir ../game`): a bare `--dir` is a usage error. */
export const textFlag = (describe: string) => ({ type: 'string' as const, requiresArg: true, describe });

/** A flag that takes a number (`--count 3`): a bare `--count` is a usage error. */
export const numberFlag = (describe: string) => ({ type: 'number' as const, requiresArg: true, describe });

/** A flag that is on or off (`--force`, `--no-open`), off unless said otherwise. */
export const switchFlag = (describe: string, on = false) => ({ type: 'boolean' as const, default: on, describe });

/** The MCP clients to register the bridge with (`--client cursor --client vscode`); Claude Code unless named. */
export const clientsFlag = (describe: string) => ({
  type: 'array' as const,
  string: true as const,
  choices: CLIENTS,
  default: ['claude' as const],
  describe,
});

/**
 * A help's examples, each command whole on a line of its own with what it does below it. yargs's
 * own example table wraps its command column at half the width, which splits a clone's
 * `node <abs path>/dist/proxy/main.js` in the middle; these lines are never wrapped (cli.ts
 * turns wrapping off), so every command can be copied as printed.
 */
export function examples(...rows: Array<[command: string, what: string]>): string {
  return ['Examples:', ...rows.map(([command, what]) => `  ${command}\n      ${what}`)].join('\n');
}
