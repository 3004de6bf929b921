/**
 * `exec` in front of the command that is the game, so the shell the launcher spawns becomes the
 * game: its pid is the game's and its exit status is the game's own (a wrapper's status is
 * only the wrapper's: `make` says 2 whatever killed the game). A simple command is exec'd
 * whole; in a plain list (`cd build && ./game`, `A=1; ./game`) the last command is exec'd,
 * which runs exactly when it would have run. Anything the scan below cannot be sure of
 * (pipes, background jobs, subshells, braces, command substitution, here-documents, keywords,
 * traps, comments, an unterminated quote) is left as written.
 */

/** Words that make a segment more than a simple command, or whose meaning exec would change. */
const KEYWORDS = /^(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|function|select|exec|trap|!|\[\[)$/;
/** Shell builtins (and the like) that exec cannot run as a program: a list ending in one is left as written. */
const BUILTINS =
  /^(?:exit|return|wait|true|false|:|read|cd|pushd|popd|export|set|unset|shift|source|\.|eval|ulimit|umask|alias|local|break|continue|times|type|hash|getopts|command|builtin|echo|printf|test|\[)$/;
/** Leading `NAME=value` assignments stay in front of exec (`A=1 exec ./game` passes A to the game). */
const ASSIGNMENTS = /^(\s*(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|[^\s'"]*)\s+)*)/;

/** Offsets where each top-level list segment starts (after `&&`, `||`, `;`), or undefined if the command is not a plain list. */
export function listSegments(command: string): number[] | undefined {
  const starts = [0];
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    const next = command[i + 1];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      continue;
    }
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`' || (c === '$' && next === '(')) return undefined;
    if (quote === '"') {
      if (c === '"') quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]))) return undefined;
    else if ('(){}\n'.includes(c) || (c === '<' && next === '<')) return undefined;
    else if (
      (c === '&' || c === '|') &&
      (command[i - 1] === '>' || command[i - 1] === '<' || (c === '&' && next === '>'))
    )
      continue; // 2>&1, &>, >|
    else if ((c === '&' || c === '|') && next === c) starts.push(++i + 1);
    else if (c === '&' || c === '|') return undefined;
    else if (c === ';') {
      if (next === ';') return undefined;
      starts.push(i + 1);
    }
  }
  return quote ? undefined : starts;
}

/** The first word of a segment after its assignments, or '' when it has none. */
function firstWord(segment: string): string {
  const lead = ASSIGNMENTS.exec(segment)?.[1] ?? '';
  return segment.slice(lead.length).trim().split(/\s+/)[0] ?? '';
}

/** `command` with `exec` in front of the game's command when that is certain to mean the same. */
export function execPrefixed(command: string, platform = process.platform): string {
  if (platform === 'win32') return command;
  const starts = listSegments(command);
  if (!starts) return command;
  const words = starts.map((s, k) => firstWord(command.slice(s, starts[k + 1])));
  if (words.some((w) => !w || KEYWORDS.test(w)) || BUILTINS.test(words[words.length - 1])) return command;
  const at = starts[starts.length - 1];
  const last = command.slice(at);
  const lead = ASSIGNMENTS.exec(last)?.[1] ?? '';
  return `${command.slice(0, at)}${lead}exec ${last.slice(lead.length).trimStart()}`;
}
