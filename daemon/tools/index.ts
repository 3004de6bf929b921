/** The MCP tools an agent sees in tools/list, in the order it meets them (the bridge toolset: daemon/bridge/). */
import { callToolTool } from './call-tool.js';
import { describeToolsetTool } from './describe-toolset.js';
import { instanceLogTool } from './instance-log.js';
import { launchInstanceTool } from './launch-instance.js';
import { listInstancesTool } from './list-instances.js';
import { listToolsetsTool } from './list-toolsets.js';
import { stopInstanceTool } from './stop-instance.js';
import type { ToolDef } from '../tool-framework/types.js';

export const TOOLS: readonly ToolDef[] = [
  listInstancesTool,
  launchInstanceTool,
  listToolsetsTool,
  describeToolsetTool,
  callToolTool,
  stopInstanceTool,
  instanceLogTool,
];

export const TOOLS_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));
