/** CPU time of processes, from /proc: unlike wall time it does not move with other programs' load. */
import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name (field 3 is index 0). */
function statFields(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

/** user + system CPU a process has used, in ms (clock ticks of 10 ms); 0 once it is gone. */
export function cpuMs(pid: number): number {
  const f = statFields(pid);
  return f ? (Number(f[11]) + Number(f[12])) * 10 : 0;
}

/** CPU in ms of each live process of a process group (a browser and its helpers), by pid. */
export function groupCpu(pgid: number): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(name);
    if (f && Number(f[2]) === pgid) byPid.set(Number(name), (Number(f[11]) + Number(f[12])) * 10);
  }
  return byPid;
}

/** CPU a process group used between two `groupCpu` looks (processes born since count whole). */
export function groupCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ms] of after) sum += ms - (before.get(pid) ?? 0);
  return sum;
}
