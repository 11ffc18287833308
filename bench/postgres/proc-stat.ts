import { readFileSync } from 'node:fs';

/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux build Node runs on. */
export const TICKS_PER_SECOND = 100;

/** The CPU counters of one process, in ticks of TICKS_PER_SECOND. */
export interface ProcessCpuTicks {
  parent: number;
  /** utime + stime. */
  own: number;
  /** cutime + cstime: children that exited and were waited for. */
  reapedChildren: number;
}

/**
 * Parses a /proc/<pid>/stat line. The command name (field 2) sits in
 * parentheses and may itself hold spaces and parentheses, so the fields are
 * counted from the last `)`.
 */
export function parseProcStat(line: string): ProcessCpuTicks {
  const fields = line
    .slice(line.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
  // fields[0] is field 3 (state): ppid is 4, utime..cstime are 14..17.
  const field = (n: number): number => Number(fields[n - 3]);
  if (fields.length < 15 || Number.isNaN(field(17))) {
    throw new Error(`not a /proc/<pid>/stat line: ${JSON.stringify(line.slice(0, 80))}`);
  }
  return {
    parent: field(4),
    own: field(14) + field(15),
    reapedChildren: field(16) + field(17),
  };
}

/** The counters of a live process; null once it has exited. */
export function processCpuTicks(pid: number): ProcessCpuTicks | null {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone between the listing of /proc and this read: nothing of it to count
  }
  return parseProcStat(line);
}
