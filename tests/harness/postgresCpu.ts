/**
 * CPU used by a benchmark's PostgreSQL cluster (its backends share the machine's cores with the server and the
 * rig, so a bench on PostgreSQL counts them). Linux only (/proc); null readings elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSecondsOf } from './childProcess';

/** The postmaster (from postmaster.pid) and every process whose parent it is (backends, walwriter, …), from /proc. */
export function postgresPids(pgDir: string): number[] {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(pgDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  const children = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/**
 * A reader of the cluster's CPU seconds so far: the sum over every process seen (a backend opened during the run
 * started from 0 CPU; one that exited keeps its last reading), so the difference of two readings is what the run
 * between them cost. `pids` lists the cluster's processes now (postgresPids, or a harness's own list).
 */
export function postgresCpuReader(pids: () => number[]): () => number | null {
  const last = new Map<number, number>();
  return () => {
    for (const pid of pids()) if (!last.has(pid)) last.set(pid, 0);
    for (const pid of last.keys()) last.set(pid, cpuSecondsOf(pid) ?? last.get(pid)!);
    return last.size === 0 ? null : [...last.values()].reduce((a, b) => a + b, 0);
  };
}
