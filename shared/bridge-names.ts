// Written by `npm run generate` from daemon/bridge/families/: do not edit.

/** The bridge toolset's tool names by family, in describe_toolset's order: the proxy cannot import the daemon. */
export const BRIDGE_FAMILY_TOOLS = {
  core: ['get_state', 'wait_for', 'raw_command', 'health', 'screenshot'],
  input: ['press', 'hold', 'release'],
  pointer: ['pointer', 'wheel', 'tap', 'swipe', 'pinch', 'set_axis', 'type', 'input_sequence'],
  clock: ['pause', 'resume', 'step'],
  watch: ['watch'],
  ui: ['snapshot', 'click', 'activate', 'set_value', 'wait_for_node'],
  world: ['find_objects', 'wait_for_object'],
  'saved-tests': ['assert', 'save_test', 'run_test', 'save_trace'],
  rewind: ['rewind'],
  errors: ['get_errors'],
  frames: ['frame_stats'],
  skills: ['define_skill', 'skill_from_session', 'delete_skill'],
} as const;
