/**
 * `game-bridge-mcp show-trace <file>`: open a trace (docs/TESTS.md, "Traces") in the browser. A
 * trace is one static page with its data inside, so nothing is served and nothing keeps running:
 * the page is handed to the platform's opener. With no display to open on (a CI machine, SSH),
 * the command prints where the file is and how to open it elsewhere.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { usageError } from '../shared/errors.js';
import { openBrowser, opener } from './dashboard.js';

/** What every trace page carries near its top (shared/trace.ts). */
const MARK = 'content="game-bridge-mcp trace ';

export function runShowTrace(file: string): number {
  const path = resolve(process.cwd(), file);
  let head = '';
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(2048);
      head = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw usageError(
      `show-trace: cannot read ${file} (${code === 'ENOENT' ? 'there is no such file' : (code ?? (e as Error).message)}). A trace is a .trace.html file \`game-bridge-mcp test\` writes in gamebridge-report/traces/, or one save_trace wrote.`,
      { file: path },
    );
  }
  if (!head.includes(MARK))
    throw usageError(
      `show-trace: ${file} is not a game-bridge-mcp trace (a .trace.html file written by \`game-bridge-mcp test --trace\` or save_trace).`,
      { file: path },
    );
  const url = pathToFileURL(path).href;
  process.stdout.write(`Trace: ${path}\n`);
  if (opener(url) && openBrowser(url)) process.stderr.write('Opening it in your browser.\n');
  else
    process.stderr.write(
      `There is no display here, so no browser was opened. The trace is one self-contained page: open ${url} in any browser, or copy the file to a machine with a display and open it there.\n`,
    );
  return 0;
}
