/** The part of a snapshot a tool result carries: frame, screen, game, events. */
import type { State } from '../game/client.js';

export function flattenEvents(events: unknown): string[] {
  if (!Array.isArray(events)) return [];
  return events.map((e) => {
    if (typeof e === 'string') return e;
    if (e && typeof e === 'object' && typeof (e as { m?: unknown }).m === 'string') return (e as { m: string }).m;
    return JSON.stringify(e);
  });
}

export function screenOf(state: State): string | undefined {
  const ui = state.ui as { screen?: unknown } | undefined;
  return ui && typeof ui.screen === 'string' ? ui.screen : undefined;
}

export function frameOf(state: State | { frame?: unknown }): number | undefined {
  return typeof state.frame === 'number' ? state.frame : undefined;
}

export interface Summary {
  frame?: number;
  screen?: string;
  game?: unknown;
  events: string[];
}

export function summarise(state: State): Summary {
  return { frame: frameOf(state), screen: screenOf(state), game: state.game, events: flattenEvents(state.events) };
}
