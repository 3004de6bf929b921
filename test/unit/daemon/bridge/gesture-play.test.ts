/**
 * Which kits take a click as one `input.click` (daemon/bridge/gesture-play.ts): a kit from
 * before the command refuses it as unknown and gets the press and the lift sent apart; one that
 * knows it refuses the argument-less question for its arguments. Asked once per game process.
 */
import { takesClick } from '../../../../daemon/bridge/gesture-play.js';
import { commandRejected } from '../../../../shared/errors.js';

function kit(refusal: { reason: string; known?: string[] } | 'accepted') {
  const asked: string[] = [];
  let generation = 1;
  const ctx = {
    client: () =>
      ({
        command: async (cmd: string) => {
          asked.push(cmd);
          if (refusal === 'accepted') return { accepted: true, commandId: 1 };
          throw commandRejected(cmd, 7000, refusal.reason, refusal.known);
        },
      }) as never,
    generation: () => () => generation,
  };
  return { ctx, asked, restart: () => void (generation += 1) };
}

test('a kit that refuses input.click as unknown gets the press and lift sent apart', async () => {
  const { ctx } = kit({ reason: "unknown command 'input.click'", known: ['input.pointer', 'close'] });
  expect(await takesClick(ctx, 7000)).toBe(false);
});

test('a kit that refuses the question for its missing arguments takes input.click', async () => {
  const { ctx } = kit({ reason: "missing argument 'owner'" });
  expect(await takesClick(ctx, 7001)).toBe(true);
});

test('a game that refuses the question in other words than a missing argument gets the press and lift sent apart', async () => {
  const { ctx } = kit({ reason: 'no such command' });
  expect(await takesClick(ctx, 7003)).toBe(false);
});

test('a game that accepts the argument-less question gets the press and lift sent apart', async () => {
  const { ctx } = kit('accepted');
  expect(await takesClick(ctx, 7004)).toBe(false);
});

test('each game process is asked once', async () => {
  const { ctx, asked, restart } = kit({ reason: "missing argument 'owner'" });
  await takesClick(ctx, 7002);
  await takesClick(ctx, 7002);
  expect(asked).toEqual(['input.click']);
  restart();
  await takesClick(ctx, 7002);
  expect(asked).toHaveLength(2);
});
