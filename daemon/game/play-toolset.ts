/** The playing-in-time tools of the bridge toolset (docs/KITS.md): held inputs and the agent's clock. None is safe to re-send. */
import type { ArgType, BridgeToolName, GameTool, ToolArg } from './types.js';

const arg = (name: string, type: ArgType, description: string, required = false, def?: string): ToolArg =>
  def === undefined ? { name, type, description, required } : { name, type, description, required, default: def };

type Make = (name: BridgeToolName, description: string, args: ToolArg[], readOnly: boolean) => GameTool;

const needs = (cap: string) => ` Needs the game's "${cap}" capability.`;

export function playTools(t: Make): GameTool[] {
  const input = arg(
    'input',
    'string',
    "The input's name as the game declares it (tools' game.inputs), e.g. 'left' or 'jump'.",
    true,
  );
  return [
    t(
      'press',
      'Press an input: hold it, let `frames` simulation frames pass (stepping the clock when the game is paused), release it; returns the state after.' +
        needs('input'),
      [input, arg('frames', 'integer', 'How many simulation frames to hold it (1-600).', false, '1')],
      false,
    ),
    t(
      'hold',
      'Hold an input for this session for `ms` milliseconds (the game releases it itself when that runs out, even if the bridge is gone). Holding again renews it. The bridge releases it when this session ends.' +
        needs('input'),
      [input, arg('ms', 'integer', 'How long to hold it, in milliseconds (1-3600000).', true)],
      false,
    ),
    t(
      'release',
      "Release an input this session holds, or everything it holds when `input` is left out. Never touches another session's inputs." +
        needs('input'),
      [{ ...input, required: false }],
      false,
    ),
    t(
      'pause',
      "Pause the game's simulation clock; the game keeps answering and applying commands." + needs('clock'),
      [],
      false,
    ),
    t('resume', "Let the game's simulation clock run again." + needs('clock'), [], false),
    t(
      'step',
      'Simulate exactly `frames` frames, then stay paused; returns the state after. With `until` (a wait_for condition) it steps one frame at a time and stops as soon as the condition holds: ' +
        '{matched, stepped} says whether it held or the frames ran out.' +
        needs('clock'),
      [
        arg('frames', 'integer', 'How many frames to simulate (1-10000); with `until`, the most it steps.', true),
        arg(
          'until',
          'object',
          'A wait_for condition, e.g. {"path": "game.x", "gte": 30} or {"path": "ui.screen", "equals": "GameOver"}.',
        ),
      ],
      false,
    ),
  ];
}
