/** DOM building without innerHTML (nothing a game or a client sends is ever parsed as HTML). */
import { authFetch } from './auth.js';
type Child = Node | string | number | null | undefined | false;

/** One element: attributes (true = present, false/undefined = absent) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children)
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'object' ? c : String(c));
  return el;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** Replace an element's children only when they differ in text (keeps selection and scroll). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/** 3d 4h, 5m 12s, 42s */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const hr = Math.floor(m / 60);
  if (hr < 24) return `${hr}h ${m % 60}m`;
  return `${Math.floor(hr / 24)}d ${hr % 24}h`;
}

/** 14:03:07 (local time) */
export function clock(iso: string, ms = false): string {
  const d = new Date(iso);
  const t = d.toLocaleTimeString([], { hour12: false, hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return ms ? `${t}.${String(d.getMilliseconds()).padStart(3, '0')}` : t;
}

export function since(iso: string | null): string {
  return iso ? duration(Date.now() - Date.parse(iso)) : '—';
}

/** The first characters of a session id: enough to tell sessions apart. */
export function shortId(id: string): string {
  return id.length > 10 ? id.slice(0, 8) : id;
}

export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await authFetch(url, init);
  const body = (await res.json().catch(() => ({ error: `HTTP ${res.status}` }))) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}
