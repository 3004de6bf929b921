/**
 * Star Catcher: a small Phaser 4 game on the game-bridge web kit. Plain ES modules, no bundler:
 * the browser loads this file, Phaser's own ESM build and the kit (both copied here at build).
 * Arrow keys (or the bridge's held `left`/`right`) steer the basket; Space starts a round.
 * Open it with #gamebridge=<ws URL> and an agent can see and drive it like any other game.
 */
import Phaser from './phaser.esm.min.js';
import { createGameSurface } from './gamebridge.js';
import { manifest } from './manifest.js';
import { BASKET, HEIGHT, STAR, StarCatcher, WIDTH } from './rules.js';

const game = new StarCatcher('stars');
let closed = false;
let phaser = null;

const surface = createGameSurface({
  name: 'Star Catcher',
  version: '1.0.0',
  manifest,
  inputs: ['left', 'right'],
  clock: true,
  sessionEpoch: 0,
  snapshot: () => ({ ...game.snapshot(), renderer: rendererName(), closed }),
  commands: {
    start: () => newRound(() => game.start()),
    reset: () => newRound(() => game.reset()),
    move_to: { validate: (a) => void a.number('x'), apply: (a) => game.moveTo(a.number('x')) },
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
  }

  update() {
    // tick() applies the agent's commands and says how many frames to simulate (0 while paused).
    const frames = surface.tick();
    game.age(surface.frame);
    if (Phaser.Input.Keyboard.JustDown(this.keys.space) && game.screen !== 'GameScreen') newRound(() => game.start());
    for (let i = 0; i < frames; i++) {
      game.simulate({ left: this.keys.left.isDown || surface.isHeld('left'), right: this.keys.right.isDown || surface.isHeld('right') });
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
    this.hud.setText(`Score ${game.score}   Lives ${game.lives}`);
    const banner = closed ? 'Closed' : game.screen === 'MenuScreen' ? 'Star Catcher\nPress Space' : game.screen === 'GameOverScreen' ? `Game over: ${game.score}\nSpace to play again` : '';
    this.banner.setText(banner);
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
  banner: false,
});
