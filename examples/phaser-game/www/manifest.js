/** Star Catcher's command list, served at GET /tools through the page carrier. */
export const manifest = {
  game: { name: 'Star Catcher', version: '1.0.0', protocol: 1 },
  toolsets: [
    {
      name: 'play',
      description: 'Play a round: start, steer the basket, reset. Hold left/right (bridge hold/press) or send move_to.',
      tools: [
        { name: 'start', description: 'Start a round (GameScreen); also what Space does on the menu.', player: true, args: [] },
        { name: 'move_to', description: "Put the basket's centre at x (world pixels, 0..800).", player: true, args: [{ name: 'x', type: 'number', description: 'World x', required: true }] },
        { name: 'reset', description: 'Back to the menu with a fresh round (a new session epoch).', player: true, args: [] },
        { name: 'close', description: 'End the game: the page shows "closed" and leaves the bridge.', args: [] },
      ],
    },
    {
      name: 'debug',
      description: 'Helpers for testing.',
      tools: [
        { name: 'spawn', description: 'Drop a star at x now.', args: [{ name: 'x', type: 'number', description: 'World x', required: true }] },
        { name: 'set_seed', description: 'Seed the star spawner (takes effect on the next round).', args: [{ name: 'seed', type: 'string', required: true }] },
        { name: 'log_state', description: "Print the game's state to the browser console; changes nothing.", readOnly: true, args: [] },
        { name: 'ping', description: 'Change nothing; a read-only no-op that confirms the game is ticking.', readOnly: true, args: [] },
      ],
    },
  ],
  passthrough: { description: 'Any other command is refused with the list of known ones.', examples: ['spawn { x }'] },
};
