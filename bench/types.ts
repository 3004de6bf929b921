/** What every measurement hands back: its figures (for results.json) and its table rows. */
export interface Row {
  /** measurement number and name, e.g. "1 latency" */
  id: string;
  /** what this row measures, e.g. "proxy+daemon p50" */
  what: string;
  value: string;
  reference?: string;
  /** overhead or ratio against the reference */
  vs?: string;
  target?: string;
  /** null: informational row, no target */
  met: boolean | null;
}

export interface Measurement {
  name: string;
  figures: Record<string, unknown>;
  rows: Row[];
}

export interface BenchConfig {
  quick: boolean;
  /** get_state calls per mode (measurement 1) */
  latencyCalls: number;
  /** calls per interleaved block */
  latencyBlock: number;
  /** start-up and reconnect runs */
  runs: number;
  /** list_instances calls after the cold one */
  discoveryCalls: number;
  discoveryGames: number;
  discoveryRange: number;
  /** commands per mode (measurement 5) */
  commands: number;
  clients: number;
  callsPerClient: number;
  memoryGames: number;
}

export const ms = (x: number, d = 2) => `${Number.isFinite(x) ? x.toFixed(d) : '-'} ms`;
export const x = (r: number) => `${Number.isFinite(r) ? r.toFixed(2) : '-'}×`;
