// tiny-game.mjs: node tiny-game.mjs 7820
import { createGameSurface } from 'game-bridge-mcp/game';

let score = 0;
const surface = createGameSurface({
  port: Number(process.argv[2]), name: 'Tiny', version: '0.1.0',
  snapshot: () => ({ ui: { screen: 'GameScreen' }, game: { score } }),
  commands: {
    // validate runs on the HTTP side (refuse bad arguments); apply runs on the game's tick
    add: { validate: (a) => void a.number('n'), apply: (a) => { score += a.number('n'); } },
  },
  manifest: { toolsets: [{ name: 'play', tools: [{ name: 'add', description: 'Add n points', args: [{ name: 'n', type: 'number', required: true }] }] }] },
});
await surface.listen();                         // binds 127.0.0.1, then writes the registry entry
setInterval(() => surface.tick(), 1000 / 60);   // your game loop calls tick() once a frame
