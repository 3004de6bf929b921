/** Crate Stack's command list as served at GET /tools (docs/CONTRACT.md). */
export function crateStackManifest(name: string, version: string): Record<string, unknown> {
  return {
    game: { name, version, protocol: 1 },
    toolsets: [
      {
        name: 'play',
        description: 'Play a round: start, drop crates, pause and resume, restart.',
        tools: [
          { name: 'start', description: 'Leave the menu and start a round (GameScreen).', args: [] },
          {
            name: 'drop',
            description:
              'Drop the next crate (game.nextKind) centred at x; it falls for a few frames, then settles and scores.',
            args: [
              {
                name: 'x',
                type: 'number',
                description: 'World x of the crate centre, 0..100',
                required: true,
                default: null,
              },
              {
                name: 'settle',
                type: 'boolean',
                description: 'Fall and settle over a few frames (false: place it at rest at once)',
                default: 'true',
              },
            ],
          },
          {
            name: 'drop_here',
            description: "Drop the next crate at the dropper's x (game.dropperX; hold left/right to move it).",
            args: [],
          },
          { name: 'pause', description: 'Pause the round (PausedScreen); simFrame stops.', args: [] },
          { name: 'resume', description: 'Resume a paused round.', args: [] },
          { name: 'restart', description: 'Start a fresh round with the current seed.', args: [] },
          { name: 'menu', description: 'Go back to the menu.', args: [] },
          { name: 'close', description: 'Quit the game through its normal exit.', args: [] },
        ],
      },
      {
        name: 'debug',
        description: 'Debugging and test helpers.',
        tools: [
          {
            name: 'set_seed',
            description: 'Seed the crate generator (the next round replays the same crates).',
            args: [{ name: 'seed', type: 'string', description: 'Any text', required: true }],
          },
          {
            name: 'bump',
            description: 'Increment game.bumps[tag] by one (counts exactly-once delivery).',
            readOnly: false,
            args: [{ name: 'tag', type: 'string', description: 'Counter name', required: true }],
          },
          { name: 'peek', description: 'Change nothing; a read-only no-op.', readOnly: true, args: [] },
          {
            name: 'freeze',
            description: "Block the game's thread for ms milliseconds (it answers nothing meanwhile).",
            args: [{ name: 'ms', type: 'number', description: 'How long, in milliseconds', required: true }],
          },
        ],
      },
    ],
    passthrough: {
      description: 'Any other command is sent as is; unknown ones are refused with the list of known commands.',
      examples: ['set_seed { seed }'],
    },
  };
}
