/**
 * The last step of `npm run build`: lays out the browser examples as static folders a browser
 * can load with no bundler and no CDN. Each gets its own `www/` plus the web kit
 * (dist/web/gamebridge.js) beside it, except the page that runs without the kit, which stays as
 * it is; the Phaser game also gets Phaser's ESM build, copied from
 * node_modules. Their gamebridge.json is copied next to the folder it names, and their saved tests
 * (gamebridge-tests/) beside it.
 */
import { copyFileSync, cpSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const kit = join(root, 'dist', 'web', 'gamebridge.js');

/** Copies examples/<name>/{www, gamebridge.json} into dist/examples/<name>/, plus the kit (unless `kit` is false) and `extra` files. */
function layOut(name: string, extra: Record<string, string> = {}, withKit = true): void {
  const from = join(root, 'examples', name);
  const to = join(root, 'dist', 'examples', name);
  mkdirSync(join(to, 'www'), { recursive: true });
  cpSync(join(from, 'www'), join(to, 'www'), { recursive: true });
  copyFileSync(join(from, 'gamebridge.json'), join(to, 'gamebridge.json'));
  if (withKit) copyFileSync(kit, join(to, 'www', 'gamebridge.js'));
  for (const [file, source] of Object.entries(extra)) copyFileSync(source, join(to, 'www', file));
  // its saved tests run against the laid-out game (docs/TESTS.md)
  if (existsSync(join(from, 'gamebridge-tests')))
    cpSync(join(from, 'gamebridge-tests'), join(to, 'gamebridge-tests'), { recursive: true });
}

if (!existsSync(kit)) throw new Error(`web-build: ${kit} is missing; run 'npm run bundle:web' first`);
layOut('canvas-game');
layOut('plain-web-game', {}, false);
const phaser = join(root, 'node_modules', 'phaser', 'dist', 'phaser.esm.min.js');
if (existsSync(phaser)) layOut('phaser-game', { 'phaser.esm.min.js': phaser });
else process.stderr.write(`web-build: ${phaser} is missing (npm ci installs it); the Phaser example was not built\n`);
