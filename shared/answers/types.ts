/**
 * The answers' TypeScript types, by tool name, for a client of this package (the CLI's test
 * runner and demo): what `z.output` of each schema gives, with what the session and `bridgeTool`
 * put in front of every answer.
 */
import type { z } from 'zod/v4';
import type * as clock from './clock.js';
import type * as core from './core.js';
import type * as fields from './fields.js';
import type * as frames from './frames.js';
import type * as input from './input.js';
import type * as instances from './instances.js';
import type * as mcp from './mcp.js';
import type * as pointer from './pointer.js';
import type * as skills from './skills.js';
import type * as testing from './testing.js';
import type * as moment from './moment.js';
import type * as ui from './ui.js';
import type * as world from './world.js';

type Out<S extends z.ZodType> = z.output<S> & { view: string };
type Bridge<S extends z.ZodType> = Out<S> & { port?: number; tool: string; via: string };

export interface McpAnswers {
  list_instances: Out<typeof instances.listInstancesAnswer>;
  launch_instance: Out<typeof instances.launchInstanceAnswer>;
  list_toolsets: Out<typeof mcp.listToolsetsAnswer>;
  describe_toolset: Out<typeof mcp.describeToolsetAnswer>;
  call_tool: Out<typeof mcp.callToolAnswer>;
  stop_instance: Out<typeof mcp.stopInstanceAnswer>;
  instance_log: Out<typeof mcp.instanceLogAnswer>;
}

export interface BridgeAnswers {
  get_state: Bridge<typeof core.getStateAnswer>;
  wait_for: Bridge<typeof core.waitForAnswer>;
  raw_command: Bridge<typeof core.rawCommandAnswer>;
  health: Bridge<typeof core.healthAnswer>;
  screenshot: Bridge<typeof core.screenshotAnswer>;
  press: Bridge<typeof input.pressAnswer>;
  hold: Bridge<typeof input.holdAnswer>;
  release: Bridge<typeof input.releaseAnswer>;
  pointer: Bridge<typeof pointer.pointerAnswer>;
  wheel: Bridge<typeof pointer.wheelAnswer>;
  tap: Bridge<typeof pointer.tapAnswer>;
  swipe: Bridge<typeof pointer.swipeAnswer>;
  pinch: Bridge<typeof pointer.pinchAnswer>;
  set_axis: Bridge<typeof pointer.setAxisAnswer>;
  type: Bridge<typeof pointer.typeAnswer>;
  input_sequence: Bridge<typeof pointer.inputSequenceAnswer>;
  pause: Bridge<typeof fields.syncAnswer>;
  resume: Bridge<typeof fields.syncAnswer>;
  step: Bridge<typeof clock.stepAnswer>;
  snapshot: Bridge<typeof ui.snapshotAnswer>;
  click: Bridge<typeof ui.clickAnswer>;
  activate: Bridge<typeof ui.clickAnswer>;
  set_value: Bridge<typeof ui.setValueAnswer>;
  wait_for_node: Bridge<typeof ui.waitForNodeAnswer>;
  find_objects: Bridge<typeof world.findObjectsAnswer>;
  wait_for_object: Bridge<typeof world.waitForObjectAnswer>;
  frame_stats: Bridge<typeof frames.frameStatsAnswer>;
  assert: Bridge<typeof testing.assertAnswer>;
  save_test: Bridge<typeof testing.saveTestAnswer>;
  run_test: Bridge<typeof testing.runTestAnswer>;
  rewind: Bridge<typeof moment.rewindAnswer>;
  save_trace: Bridge<typeof testing.saveTraceAnswer>;
  define_skill: Bridge<typeof skills.defineSkillAnswer>;
  skill_from_session: Bridge<typeof skills.skillFromSessionAnswer>;
  delete_skill: Bridge<typeof skills.deleteSkillAnswer>;
}

/** What call_tool answers for a name: a bridge tool's own answer (`step` or `bridge.step`), else a game tool's. */
export type GameAnswer<N extends string> = N extends `bridge.${infer B}`
  ? B extends keyof BridgeAnswers
    ? BridgeAnswers[B]
    : McpAnswers['call_tool']
  : N extends keyof BridgeAnswers
    ? BridgeAnswers[N]
    : McpAnswers['call_tool'];
