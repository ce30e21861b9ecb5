import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * A process as a file can record it: its pid, and when it started where the system says so (Linux:
 * /proc). The start time tells a pid that was reused since from the process that wrote the record.
 */
export interface ProcessRecord {
  pid: number;
  started?: string;
}

/** The fields of /proc/<pid>/stat from the third (the state) on; undefined where there is no /proc. */
function statOf(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command (field 2) is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** When the process started, in clock ticks since boot (/proc/<pid>/stat, field 22); undefined where there is no /proc. */
export const startTimeOf = (pid: number): string | undefined => statOf(pid)?.[19];

export const thisProcess = (): ProcessRecord => ({ pid: process.pid, started: startTimeOf(process.pid) });

/**
 * Whether the recorded process still runs: the pid is alive, not a zombie (ended, not yet reaped: a
 * container's init may never reap it) and, where both are known, started when recorded.
 */
export function isRunning(record: ProcessRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = statOf(record.pid);
  if (stat?.[0] === 'Z') return false;
  return record.started === undefined || stat === undefined || stat[19] === record.started;
}

/** The command line of a running process (arguments joined by spaces), or undefined when it is not running. */
export function commandLineOf(pid: number): string | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return args.split('\0').filter(Boolean).join(' ');
  } catch {
    const ps = spawnSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 && ps.stdout.trim() ? ps.stdout.trim() : undefined;
  }
}
