/**
 * The seed's part of the init script (page-clock.ts `pageScript`): `Math.random` and
 * `crypto.getRandomValues` (and `crypto.randomUUID`) replaced by a generator seeded from the
 * launch's seed before the page's first script, so the same seed deals the same game.
 * `__SEED__` is replaced by the seed as a JSON string.
 */
import { randomBytes } from 'node:crypto';

/** The seed of a page launched without one: picked here so it can be shown, saved and replayed. */
export const pickSeed = (): string => randomBytes(4).toString('hex');

// sfc32, seeded by hashing the seed's text (cyrb128): small, fast and well distributed.
export const SEED = `
const seed = __SEED__;
let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
for (let i = 0; i < seed.length; i++) {
  const k = seed.charCodeAt(i);
  h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
  h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
  h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
  h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
}
h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
let a = (h1 ^ h2 ^ h3 ^ h4) >>> 0, b = (h2 ^ h1) >>> 0, c = (h3 ^ h1) >>> 0, d = (h4 ^ h1) >>> 0;
const next32 = () => {
  a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
  let t = (a + b) | 0;
  a = b ^ (b >>> 9);
  b = (c + (c << 3)) | 0;
  c = (c << 21) | (c >>> 11);
  d = (d + 1) | 0;
  t = (t + d) | 0;
  c = (c + t) | 0;
  return t >>> 0;
};
for (let i = 0; i < 15; i++) next32();
Math.random = function random() { return next32() / 4294967296; };
const fill = function getRandomValues(array) {
  const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
  for (let i = 0; i < bytes.length; i += 4) {
    const v = next32();
    for (let j = 0; j < 4 && i + j < bytes.length; j++) bytes[i + j] = (v >>> (8 * j)) & 255;
  }
  return array;
};
Object.defineProperty(Crypto.prototype, 'getRandomValues', { value: fill, configurable: true, writable: true });
Object.defineProperty(Crypto.prototype, 'randomUUID', {
  configurable: true,
  writable: true,
  value: function randomUUID() {
    const b = fill(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  },
});
`;
