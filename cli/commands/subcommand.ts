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
  builder(y: Argv): Argv<U>;
  run(a: ArgumentsCamelCase<U>): Promise<number | void>;
}

/** A subcommand, with its argument types carried from the builder to `run`. */
export const subcommand = <U>(c: Subcommand<U>): Subcommand<U> => c;

/** Every subcommand rejects flags it does not know, so a typo never silently does something else. */
export const strict = <T>(y: Argv<T>) => y.strict();
