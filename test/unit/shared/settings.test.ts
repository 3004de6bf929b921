/** The GAME_BRIDGE_* variables: one parser with bounds, and docs/SETTINGS.md listing every one the code reads. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { numberSetting, SETTINGS, TEXT_SETTINGS } from '../../../shared/settings.js';

const ROOT = process.cwd();

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('a number setting reads unset, empty or text as its default, keeps 0 where allowed and brings other values within bounds', () => {
  const s = SETTINGS.idleExitMs;
  const at = (v?: string) => numberSetting(s, v === undefined ? {} : { [s.name]: v });
  expect(at()).toBe(s.default);
  expect(at('')).toBe(s.default);
  expect(at('soon')).toBe(s.default);
  expect(at('0')).toBe(0);
  expect(at(' 1500 ')).toBe(1500);
  expect(at('-5')).toBe(s.min);
  expect(at('1e15')).toBe(s.max);
  expect(numberSetting(SETTINGS.maxConnections, { GAME_BRIDGE_MAX_CONNECTIONS: '0' })).toBe(1);
});

const ALIASES = ['GAME_BRIDGE_SCAN', 'GAME_BRIDGE_LAUNCH'];
const KNOWN = new Set([...Object.values(SETTINGS).map((s) => s.name), ...Object.keys(TEXT_SETTINGS), ...ALIASES]);

test('every GAME_BRIDGE_* variable the code reads is a setting', () => {
  const read = new Set<string>();
  for (const dir of ['daemon', 'shared', 'proxy', 'cli'])
    for (const f of sources(join(ROOT, dir)))
      for (const m of readFileSync(f, 'utf8').matchAll(/GAME_BRIDGE_[A-Z][A-Z_]*[A-Z]/g)) read.add(m[0]);
  expect(read.size).toBeGreaterThan(10);
  expect([...read].filter((n) => !KNOWN.has(n)).sort()).toEqual([]);
});

test('docs/SETTINGS.md lists every setting', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'SETTINGS.md'), 'utf8');
  const rows = new Set([...doc.matchAll(/^\| `(GAME_BRIDGE_[A-Z_]+)` \|/gm)].map((m) => m[1]));
  expect([...KNOWN].filter((n) => !ALIASES.includes(n) && !rows.has(n)).sort()).toEqual([]);
  for (const s of Object.values(SETTINGS)) expect(doc).toContain(`| \`${s.name}\` | ${s.what} |`);
});
