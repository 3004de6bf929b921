/** The package version, read once from package.json (two levels above dist/shared/). */
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8'));
      if (pkg.name === 'game-bridge-mcp') return String(pkg.version);
    } catch {
      /* try the next */
    }
  }
  return '0.0.0';
}

/** GAME_BRIDGE_VERSION_OVERRIDE exists for the handover test: a daemon that claims another version. */
export const VERSION: string = process.env.GAME_BRIDGE_VERSION_OVERRIDE || readVersion();
