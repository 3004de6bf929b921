/**
 * Crate Stack's UI and world trees (GET /ui, GET /world): the screens' buttons, labels and
 * settings as a player sees them, each button pressing what its command does, and the crates
 * and the dropper as world objects.
 */
import type { UiNode, UiTree, WorldObject } from '../../kits/js/index.js';
import { KINDS, DROP_HEIGHT, type CrateStack } from './game.js';

/** What the buttons do: the same paths as the game's commands. */
export interface MenuActions {
  start(): void;
  pause(): void;
  resume(): void;
  restart(): void;
  menu(): void;
}

/** `startLabel`: the Start button's label; its ref is the label in lower case, words joined by '-'. */
export function crateStackUi(game: CrateStack, act: MenuActions, startLabel = 'Start'): UiTree {
  return { screen: game.screen, nodes: screenNodes(game, act, startLabel) };
}

/** What the current screen shows. */
function screenNodes(game: CrateStack, act: MenuActions, startLabel: string): UiNode[] {
  const button = (id: string, name: string, activate: () => void): UiNode => ({ id, role: 'button', name, activate });
  const score: UiNode = { id: 'score', role: 'text', name: `Score ${game.score}` };
  switch (game.screen) {
    case 'MenuScreen':
      return [
        { id: 'title', role: 'heading', name: 'Crate Stack' },
        {
          id: 'main-menu',
          role: 'group',
          name: 'Main menu',
          children: [
            button(startLabel.trim().toLowerCase().split(/\s+/).join('-'), startLabel, act.start),
            // Not built yet: a disabled option, as real menus have.
            { id: 'options', role: 'button', name: 'Options', enabled: false },
            {
              id: 'volume',
              role: 'slider',
              name: 'Volume',
              value: game.volume,
              min: 0,
              max: 1,
              setValue: (v) => game.setVolume(Number(v)),
            },
          ],
        },
      ];
    case 'GameScreen':
      return [score, { id: 'next', role: 'text', name: `Next: ${game.nextKind}` }, button('pause', 'Pause', act.pause)];
    case 'PausedScreen':
      return [
        {
          id: 'paused',
          role: 'dialog',
          name: 'Paused',
          children: [button('resume', 'Resume', act.resume), button('menu', 'Menu', act.menu)],
        },
      ];
    case 'GameOverScreen':
      return [
        {
          id: 'over',
          role: 'dialog',
          name: `Game over: ${game.overReason}`,
          children: [score, button('restart', 'Restart', act.restart), button('menu', 'Menu', act.menu)],
        },
      ];
  }
}

/** The crates (a player sees them all) and the dropper, in world units (the floor is y = 0). */
export function crateStackWorld(game: CrateStack): WorldObject[] {
  const crates: WorldObject[] = game.crates.map((c) => ({
    id: `crate-${c.id}`,
    type: 'crate',
    name: `${c.kind} crate #${c.id}`,
    pos: [c.x, c.y],
    tags: [c.kind, c.settled ? 'settled' : 'falling'],
    props: { ...KINDS[c.kind] },
    player: true,
  }));
  return [
    ...crates,
    { id: 'dropper', type: 'dropper', name: 'Dropper', pos: [game.dropperX, DROP_HEIGHT], player: true },
  ];
}
