/**
 * `doctor`'s look at the files a launch command names: the program (on PATH or a path) and the
 * arguments that look like script files, resolved in the command's folder. Only a plain command is
 * read (no pipes, substitutions or control flow): anything else is the shell's to interpret, and a
 * guess would report problems that are not there.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { listSegments } from '../daemon/launcher/exec-prefix.js';
import type { Finding } from './findings.js';

/** Arguments that name a file a runtime loads: a script, a game package, a project file. */
const SCRIPT = /\.(?:m?js|cjs|ts|mts|py|lua|love|exe|dll|sh|jar|gd|godot|tscn|pck)$/i;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The words of a plain command, quotes removed; undefined when the shell would do more than split it. */
function plainWords(template: string): string[] | undefined {
  // {port} and {webPort} are the bridge's, filled before the shell sees the command
  const command = template.replaceAll('{port}', '7820').replaceAll('{webPort}', '7821');
  const segments = listSegments(command);
  if (!segments || segments.length !== 1 || /[$`*?<>|&;]/.test(command)) return undefined;
  const words: string[] = [];
  for (const m of command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3]);
  while (words.length && ASSIGNMENT.test(words[0])) words.shift();
  return words;
}

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}

/** Findings for the files `command` (run in `cwd`) names that do not exist; none when all are there. */
export function checkCommandFiles(
  file: string,
  command: string,
  cwd: string,
  f: Finding[],
  env = process.env,
  field = 'launch.command',
): void {
  const words = plainWords(command);
  if (!words?.length || words[0] === 'exec') return;
  const [program, ...args] = words;
  if (program.includes('/') ? !existsSync(resolve(cwd, program)) : !onPath(program, env)) {
    f.push({
      level: 'problem',
      what: `${file}: ${field} runs ${program}, which ${program.includes('/') ? `does not exist in ${cwd}` : 'is not on PATH'}`,
      fix: program.includes('/')
        ? 'fix the path (it is resolved in launch.cwd)'
        : `install ${program}, or give its full path`,
    });
  }
  for (const arg of args) {
    if (arg.startsWith('-') || !SCRIPT.test(arg)) continue;
    const path = isAbsolute(arg) ? arg : resolve(cwd, arg);
    if (!existsSync(path)) {
      f.push({
        level: 'problem',
        what: `${file}: ${field} names ${arg}, which does not exist in ${cwd}`,
        fix: 'fix the name, or set launch.cwd to the folder that holds it',
      });
    }
  }
}
