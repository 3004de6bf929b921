/**
 * Plain-text tables and durations for the people-facing subcommands (status, launch): columns
 * padded to their widest cell, nothing the terminal has to interpret.
 */
import { printable } from './printable.js';

/** Rows under a header, each column as wide as its widest cell; empty → `none` line. */
export function table(header: string[], rows: string[][], none: string): string {
  if (!rows.length) return `  ${none}\n`;
  // cells come from games (names, versions): inert before they are measured
  rows = rows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    '  ' +
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** 950 → "0.9s", 75000 → "1m15s", 7_500_000 → "2h05m". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${(ms / 1000).toFixed(1)}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Time since an ISO date, as a duration. */
export const since = (iso: unknown, now = Date.now()): string =>
  typeof iso === 'string' ? duration(now - Date.parse(iso)) : '?';
