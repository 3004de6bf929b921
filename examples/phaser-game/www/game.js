/**
 * Star Catcher: a small Phaser 4 game on the game-bridge web kit. Plain ES modules, no bundler:
 * the browser loads this file, Phaser's own ESM build and the kit (both copied here at build).
 * Arrow keys (or the bridge's held `left`/`right`, or its analog `steer`) steer the basket; Space,
 * or a click or tap on Play, starts a round; typed text is the high-score name.
 * Open it with #gamebridge=<ws URL> and an agent can see and drive it like any other game.
 * The menu's buttons are drawn on the canvas, so the page publishes them (and the stars and the
 * basket) to the kit as its UI and world trees, with their boxes in screenshot pixels.
 */
import Phaser from './phaser.esm.min.js';
import { createGameSurface } from './gamebridge.js';
import { manifest } from './manifest.js';
import { BASKET, HEIGHT, STAR, StarCatcher, WIDTH } from './rules.js';

const game = new StarCatcher('stars');
let closed = false;
let phaser = null;
/** The menu's setting, 0 to 1 (the game makes no sound yet; the slider is what a menu has). */
let volume = 0.8;
/** The menu's items in world pixels (800×450), drawn by the scene and published in /ui. */
const MENU = {
  play: { x: 340, y: 262, w: 120, h: 38 },
  options: { x: 340, y: 308, w: 120, h: 38 },
  volume: { x: 330, y: 382, w: 140, h: 10 },
};

const surface = createGameSurface({
  name: 'Star Catcher',
  version: '1.0.0',
  manifest,
  inputs: ['left', 'right'],
  // A stick steers the basket; the pointer and touch reach Phaser's own input on its canvas (a
  // click or tap on Play starts a round); typed text is the high-score name.
  axes: [{ name: 'steer', min: -1, max: 1 }],
  pointer: true,
  touch: true,
  text: true,
  inputTarget: () => phaser?.canvas,
  clock: true,
  // its simulation reads no wall clock: a step's frames may all run in one frame
  stepFramesPerTick: 1000,
  sessionEpoch: 0,
  snapshot: () => ({ ...game.snapshot(), renderer: rendererName(), closed }),
  ui: () => uiTree(),
  world: () => [
    ...game.stars.map((s) => ({ id: `star-${s.id}`, type: 'star', name: `Star #${s.id}`, pos: [s.x, s.y], player: true })),
    { id: 'basket', type: 'basket', name: 'Basket', pos: [game.basketX, BASKET.y], player: true },
  ],
  commands: {
    start: () => newRound(() => game.start()),
    reset: () => newRound(() => game.reset()),
    move_to: {
      validate: (a) => void a.number('x'),
      // Thrown on the game's frame: the command's result says so (ok: false, these words).
      apply: (a) => {
        if (game.screen !== 'GameScreen') throw new Error(`no round is running (${game.screen}): start one first`);
        game.moveTo(a.number('x'));
      },
    },
    spawn: { validate: (a) => void a.number('x'), apply: (a) => game.spawn(a.number('x')) },
    set_seed: { validate: (a) => void a.string('seed'), apply: (a) => game.setSeed(a.string('seed')) },
    log_state: () => console.log('star-catcher state', JSON.stringify(game.snapshot().game)),
    ping: () => undefined,
  },
  // A page cannot quit: show that the game ended, and leave the bridge (it sees the game go offline).
  onClose: () => {
    closed = true;
    surface.close();
  },
});
surface.listen();

/** A new round in the same page is a new run: a new session epoch. */
function newRound(run) {
  run();
  surface.newEpoch();
}

/** What the player sees on the canvas, with each item's box in screenshot pixels. */
function uiTree() {
  const start = () => newRound(() => game.start());
  const hud = [
    { id: 'score', role: 'text', name: `Score ${game.score}` },
    { id: 'lives', role: 'text', name: `Lives ${game.lives}` },
  ];
  if (game.screen === 'GameScreen') return { screen: game.screen, nodes: hud };
  if (game.screen === 'GameOverScreen') {
    return {
      screen: game.screen,
      nodes: [
        { id: 'over', role: 'heading', name: `Game over: ${game.score}` },
        { id: 'play-again', role: 'button', name: 'Play again', rect: box(MENU.play), activate: start },
      ],
    };
  }
  return {
    screen: game.screen,
    nodes: [
      { id: 'title', role: 'heading', name: 'Star Catcher' },
      {
        id: 'menu',
        role: 'group',
        name: 'Main menu',
        children: [
          { id: 'play', role: 'button', name: 'Play', rect: box(MENU.play), activate: start },
          { id: 'options', role: 'button', name: 'Options', enabled: false, rect: box(MENU.options) },
          { id: 'volume', role: 'slider', name: 'Volume', value: volume, min: 0, max: 1, rect: box(MENU.volume), setValue: (v) => (volume = v) },
        ],
      },
    ],
  };
}

/** A world-pixel box as [x, y, w, h] in the page's screenshot pixels (the canvas is scaled to fit). */
function box(r) {
  const canvas = phaser?.canvas;
  if (!canvas) return undefined;
  const b = canvas.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const sx = (b.width / WIDTH) * dpr;
  const sy = (b.height / HEIGHT) * dpr;
  return [Math.round(b.left * dpr + r.x * sx), Math.round(b.top * dpr + r.y * sy), Math.round(r.w * sx), Math.round(r.h * sy)];
}

function rendererName() {
  if (!phaser?.renderer) return null;
  return phaser.renderer.type === Phaser.WEBGL ? 'WebGL' : 'Canvas';
}

class Play extends Phaser.Scene {
  create() {
    this.sky = this.add.graphics();
    this.drawSky();
    this.world = this.add.graphics();
    this.keys = this.input.keyboard.createCursorKeys();
    const style = { fontFamily: 'sans-serif', fontSize: '22px', color: '#e8ecff' };
    this.hud = this.add.text(16, 12, '', style);
    this.banner = this.add.text(WIDTH / 2, HEIGHT / 2 - 20, '', { ...style, fontSize: '40px', align: 'center' }).setOrigin(0.5);
    // The menu, drawn where uiTree() says it is; a real click on Play starts a round too.
    this.menu = this.add.graphics();
    const label = (r, text, color) => this.add.text(r.x + r.w / 2, r.y + r.h / 2, text, { ...style, color }).setOrigin(0.5);
    this.playLabel = label(MENU.play, 'Play', '#0b1020');
    this.optionsLabel = label(MENU.options, 'Options', '#7a819c');
    this.volumeLabel = this.add.text(MENU.volume.x, MENU.volume.y - 24, '', { ...style, fontSize: '16px' });
    this.playZone = this.add.zone(MENU.play.x, MENU.play.y, MENU.play.w, MENU.play.h).setOrigin(0).setInteractive();
    this.playZone.on('pointerdown', () => {
      if (game.screen !== 'GameScreen') newRound(() => game.start());
    });
  }

  update() {
    // tick() applies the agent's commands and says how many frames to simulate (0 while paused).
    const frames = surface.tick();
    game.age(surface.frame);
    game.typeName(surface.takeText());
    if (Phaser.Input.Keyboard.JustDown(this.keys.space) && game.screen !== 'GameScreen') newRound(() => game.start());
    for (let i = 0; i < frames; i++) {
      game.simulate({ left: this.keys.left.isDown || surface.isHeld('left'), right: this.keys.right.isDown || surface.isHeld('right'), steer: surface.axis('steer') });
    }
    this.draw();
  }

  drawSky() {
    this.sky.fillGradientStyle(0x0b1020, 0x0b1020, 0x24305e, 0x24305e, 1);
    this.sky.fillRect(0, 0, WIDTH, HEIGHT);
    this.sky.fillStyle(0xffffff, 0.5);
    for (let i = 0; i < 60; i++) this.sky.fillCircle((i * 137) % WIDTH, (i * 71) % (HEIGHT - 80), 1 + (i % 2));
  }

  draw() {
    const g = this.world;
    g.clear();
    g.fillStyle(0x3a8f5c, 1);
    g.fillRect(0, BASKET.y + 14, WIDTH, HEIGHT - BASKET.y);
    g.fillStyle(0xffc83d, 1);
    for (const s of game.stars) g.fillCircle(s.x, s.y, STAR.radius);
    g.fillStyle(0xd9703c, 1);
    g.fillRoundedRect(game.basketX - BASKET.width / 2, BASKET.y, BASKET.width, 22, 8);
    this.hud.setText(`Score ${game.score}   Lives ${game.lives}${game.name ? `   ${game.name}` : ''}`);
    const banner = closed ? 'Closed' : game.screen === 'MenuScreen' ? 'Star Catcher\nPress Space' : game.screen === 'GameOverScreen' ? `Game over: ${game.score}\nSpace to play again` : '';
    this.banner.setText(banner);
    this.drawMenu();
  }

  drawMenu() {
    const m = this.menu;
    m.clear();
    const onMenu = game.screen === 'MenuScreen' && !closed;
    const playShown = onMenu || (game.screen === 'GameOverScreen' && !closed);
    this.playLabel.setVisible(playShown).setText(onMenu ? 'Play' : 'Play again');
    this.optionsLabel.setVisible(onMenu);
    this.volumeLabel.setVisible(onMenu).setText(`Volume ${Math.round(volume * 100)}%`);
    if (playShown) {
      m.fillStyle(0xffc83d, 1);
      m.fillRoundedRect(MENU.play.x, MENU.play.y, MENU.play.w, MENU.play.h, 8);
    }
    if (!onMenu) return;
    m.lineStyle(2, 0x7a819c, 1);
    m.strokeRoundedRect(MENU.options.x, MENU.options.y, MENU.options.w, MENU.options.h, 8);
    const v = MENU.volume;
    m.fillStyle(0x3b4470, 1);
    m.fillRect(v.x, v.y, v.w, v.h);
    m.fillStyle(0xe8ecff, 1);
    m.fillRect(v.x, v.y, v.w * volume, v.h);
  }
}

phaser = new Phaser.Game({
  type: Phaser.AUTO,
  parent: 'game',
  width: WIDTH,
  height: HEIGHT,
  backgroundColor: '#0b1020',
  scale: { mode: Phaser.Scale.FIT, autoCenter: Phaser.Scale.CENTER_BOTH },
  scene: Play,
  // Touch on every device, not only those Chromium reports as touch screens: the bridge's taps arrive as touch events.
  input: { touch: true },
  banner: false,
});
