/**
 * The world tree a game publishes (`GET /world`, docs/CONTRACT.md): the objects it chose to
 * show, read bounded, filtered, and measured against a reference. A look resolves the
 * reference and every candidate inside one snapshot, so a distance never mixes two frames.
 */
import { z } from 'zod/v4';
import { usageError } from '../../shared/errors.js';
import { forgiving, header, idOf, readSnapshot, snapshotCounters, type SnapshotId } from './tree.js';

export const MAX_OBJECTS = 5000;

const ObjectShape = z.object({
  id: z.union([z.string().min(1).max(200), z.number().transform(String)]),
  type: z.string().max(100).catch(''),
  name: forgiving(z.string().max(500)),
  pos: forgiving(z.array(z.number()).min(2).max(3)),
  tags: forgiving(z.array(z.string().max(100)).max(50)),
  props: forgiving(z.record(z.string(), z.unknown())),
  player: forgiving(z.boolean()),
});
export type WorldObject = z.output<typeof ObjectShape>;

export interface WorldSnapshot extends SnapshotId {
  objects: WorldObject[];
}

const WorldShape = z.object({
  ...snapshotCounters,
  objects: z.array(z.unknown()).max(MAX_OBJECTS),
});

/** `GET /world`'s body → a snapshot (objects that do not read are dropped), or NotAGameSurface. */
export function readWorld(port: number, json: unknown): WorldSnapshot {
  const body = readSnapshot(port, 'world', WorldShape, json);
  const objects: WorldObject[] = [];
  for (const o of body.objects) {
    const p = ObjectShape.safeParse(o);
    if (p.success) objects.push(p.data);
  }
  return { ...idOf(body), objects };
}

export interface ObjectQuery {
  type?: string;
  tag?: string;
  name?: string;
  near?: { ref?: string; pos?: number[]; within: number };
  limit?: number;
}

export interface Match extends WorldObject {
  distance?: number;
}

export interface Look {
  snapshot: SnapshotId;
  matches: Match[];
  /** how many matched before `limit` */
  total: number;
}

function distance(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

/**
 * One look: the query resolved inside this one snapshot. `visible` narrows what may be seen
 * (the player view); a `near.ref` the snapshot lacks is a usage error naming what is there.
 */
export function look(w: WorldSnapshot, q: ObjectQuery, visible: (o: WorldObject) => boolean = () => true): Look {
  const objects = w.objects.filter(visible);
  let origin: number[] | undefined;
  if (q.near?.ref !== undefined) {
    const ref = objects.find((o) => o.id === q.near!.ref);
    if (!ref)
      throw usageError(
        `find_objects: the world (revision ${w.revision ?? '?'}) has no object '${q.near.ref}'. ` +
          `Objects: ${
            objects
              .slice(0, 10)
              .map((o) => o.id)
              .join(', ') || '(none)'
          }${objects.length > 10 ? ', …' : ''}. Use one of those ids, or near.pos.`,
      );
    if (!ref.pos)
      throw usageError(`find_objects: object '${ref.id}' has no pos, so nothing can be near it; use near.pos.`);
    origin = ref.pos;
  } else if (q.near?.pos) origin = q.near.pos;
  const name = q.name?.toLowerCase();
  let matches: Match[] = [];
  for (const o of objects) {
    if (q.type && o.type !== q.type) continue;
    if (q.tag && !o.tags?.includes(q.tag)) continue;
    if (name && !(o.name ?? '').toLowerCase().includes(name) && !o.id.toLowerCase().includes(name)) continue;
    if (origin) {
      if (q.near?.ref !== undefined && o.id === q.near.ref) continue;
      if (!o.pos) continue;
      const d = distance(origin, o.pos);
      if (d > q.near!.within) continue;
      matches.push({ ...o, distance: Math.round(d * 1000) / 1000 });
    } else matches.push(o);
  }
  if (origin) matches.sort((a, b) => a.distance! - b.distance!);
  const total = matches.length;
  matches = matches.slice(0, q.limit ?? 20);
  return { snapshot: idOf(w), matches, total };
}

/** The look as text: the header, then one line per match. */
export function renderLook(l: Look): string {
  const lines = [header('world', l.snapshot) + ` · ${l.total} match${l.total === 1 ? '' : 'es'}`];
  for (const m of l.matches)
    lines.push(
      `- ${m.type || 'object'}${m.name ? ' ' + JSON.stringify(m.name) : ''} [ref=${m.id}]` +
        (m.pos ? ` pos=${JSON.stringify(m.pos)}` : '') +
        (m.distance !== undefined ? ` distance=${m.distance}` : '') +
        (m.tags?.length ? ` tags=${m.tags.join(',')}` : ''),
    );
  if (l.total > l.matches.length) lines.push(`(${l.total - l.matches.length} more; raise limit)`);
  return lines.join('\n');
}
