/**
 * What a game may have beyond the contract (docs/CONTRACT.md, "Capabilities"), one row per
 * capability: how /health declares it, the field of /tools's `game` block that goes with it,
 * whether a session holds it down, and the reserved commands it opens. The bridge's checks
 * (daemon/bridge/needs.ts), the manifest reader (daemon/game/manifest.ts) and the conformance
 * suite (test/kits/conformance.test.ts, which holds every kit to this table) read it here; the
 * kits, in their own languages, keep their copies of the commands and are checked against it.
 */

export interface CapabilityRow {
  /** `listed`: /health's `capabilities` names it; `route`: only the route's own answer tells (GET /screenshot) */
  health: 'listed' | 'route';
  /** the field of /tools's `game` block that goes with it: a flag (`pointer: true`) or a list (`inputs`, `axes`) */
  manifest?: 'inputs' | 'axes' | 'pointer' | 'touch' | 'text';
  /** a session holds it down (a key, an axis, a button, a touch): `release` frees it, and so does the session's end */
  held: boolean;
  /** a player's input device: any one of them opens `input.release` and `input.releaseAll` and the state's `input` */
  device: boolean;
  /** the reserved commands a kit accepts when it declares it */
  commands: readonly string[];
}

const TABLE = {
  input: {
    health: 'listed',
    manifest: 'inputs',
    held: true,
    device: true,
    commands: ['input.hold', 'input.release', 'input.releaseAll'],
  },
  pointer: {
    health: 'listed',
    manifest: 'pointer',
    held: true,
    device: true,
    commands: ['input.pointer', 'input.click', 'input.wheel'],
  },
  touch: { health: 'listed', manifest: 'touch', held: true, device: true, commands: ['input.touch'] },
  axis: { health: 'listed', manifest: 'axes', held: true, device: true, commands: ['input.axis'] },
  text: { health: 'listed', manifest: 'text', held: false, device: true, commands: ['input.text'] },
  clock: { health: 'listed', held: false, device: false, commands: ['clock.pause', 'clock.resume', 'clock.step'] },
  ui: { health: 'listed', held: false, device: false, commands: ['ui.activate', 'ui.setValue', 'ui.focus'] },
  world: { health: 'listed', held: false, device: false, commands: [] },
  screenshot: { health: 'route', held: false, device: false, commands: [] },
  frames: { health: 'route', held: false, device: false, commands: [] },
} as const satisfies Record<string, CapabilityRow>;

export type Capability = keyof typeof TABLE;

export const CAPABILITIES: Readonly<Record<Capability, CapabilityRow>> = TABLE;

const ROWS = Object.entries(CAPABILITIES) as Array<[Capability, CapabilityRow]>;

/** Every capability, in the table's order. */
export const CAPABILITY_NAMES: readonly Capability[] = ROWS.map(([name]) => name);

/** What a session may hold down: `release` frees any of them. */
export const HELD_CAPABILITIES: readonly Capability[] = ROWS.filter(([, r]) => r.held).map(([name]) => name);

/** The capabilities /tools says with a flag of their own name in its `game` block (`"pointer": true`). */
export const MANIFEST_FLAGS = ROWS.flatMap(([name, r]) => (r.manifest === name ? [name] : [])) as Array<
  'pointer' | 'touch' | 'text'
>;

/** Is it named in /health's `capabilities` (or does only its route's answer tell)? */
export const listedInHealth = (cap: Capability): boolean => CAPABILITIES[cap].health === 'listed';

/** The reserved commands a game that declares `caps` accepts, in the table's order. */
export function reservedCommands(caps: readonly string[]): string[] {
  const has = (c: Capability) => caps.includes(c);
  const anyDevice = ROWS.some(([name, r]) => r.device && has(name));
  const out: string[] = ROWS.flatMap(([name, r]) => (has(name) ? r.commands : []));
  if (anyDevice) for (const c of ['input.release', 'input.releaseAll']) if (!out.includes(c)) out.push(c);
  return out;
}
