/**
 * One subcommand as cli/cli.ts hands it to yargs: its usage, a builder for its flags and
 * examples, and what it runs. `run` answers the exit code (nothing: 0), so the commands stay
 * plain functions and the parser alone decides how the process ends.
 */
import type { ArgumentsCamelCase, Argv } from 'yargs';

export interface Subcommand<U = object> {
  /** the usage line, e.g. `logs <port>`; its first word is the command's name */
  command: string;
  describe: string;
  /** its flags and examples (cli.ts makes every subcommand strict: an unknown flag is a usage error) */
  builder(y: Argv): Argv<U>;
  run(a: ArgumentsCamelCase<U>): Promise<number | void>;
}

/** A subcommand, with its argument types carried from the builder to `run`. */
export const subcommand = <U>(c: Subcommand<U>): Subcommand<U> => c;

/** A flag that takes a text value (`--dir ../game`): a bare `--dir` is a usage error. */
export const textFlag = (describe: string) => ({ type: 'string' as const, requiresArg: true, describe });

/** A flag that takes a number (`--count 3`): a bare `--count` is a usage error. */
export const numberFlag = (describe: string) => ({ type: 'number' as const, requiresArg: true, describe });

/**
 * A help's examples, each command whole on a line of its own with what it does below it. yargs's
 * own example table wraps its command column at half the width, which splits a clone's
 * `node <abs path>/dist/proxy/main.js` in the middle; these lines are never wrapped (cli.ts
 * turns wrapping off), so every command can be copied as printed.
 */
export function examples(...rows: Array<[command: string, what: string]>): string {
  return ['Examples:', ...rows.map(([command, what]) => `  ${command}\n      ${what}`)].join('\n');
}
