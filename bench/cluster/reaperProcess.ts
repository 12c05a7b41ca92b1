/**
 * The cluster harness's orphan guard, a detached child of the harness. The harness writes one JSON line per
 * process it starts (`{"pid":123,"group":true,"signal":"SIGQUIT"}`), per process gone (`{"forget":123}`) and per
 * temp folder (`{"dir":"/tmp/…"}`). When its stdin ends — the harness stopped, or died of any signal, SIGKILL
 * included, because the kernel closes the pipe — it signals every process still listed (the whole process
 * group where `group` is set), removes the folders and exits. A harness that stopped cleanly has forgotten
 * everything first, so then it only exits.
 */
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

interface Entry {
  pid: number;
  group: boolean;
  signal: NodeJS.Signals;
}
const processes = new Map<number, Entry>();
const dirs = new Set<string>();

// Ctrl-C in the harness's terminal must not end the guard before the harness has cleaned up.
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let m: { pid?: unknown; group?: unknown; signal?: unknown; forget?: unknown; dir?: unknown; forgetDir?: unknown };
  try {
    m = JSON.parse(line) as typeof m;
  } catch {
    return;
  }
  if (typeof m.pid === 'number') processes.set(m.pid, { pid: m.pid, group: m.group === true, signal: (typeof m.signal === 'string' ? m.signal : 'SIGKILL') as NodeJS.Signals });
  if (typeof m.forget === 'number') processes.delete(m.forget);
  if (typeof m.dir === 'string') dirs.add(m.dir);
  if (typeof m.forgetDir === 'string') dirs.delete(m.forgetDir);
});
lines.on('close', () => {
  for (const p of processes.values()) {
    try {
      process.kill(p.group ? -p.pid : p.pid, p.signal);
    } catch {
      // already gone
    }
  }
  // A moment for the processes to release their folders (PostgreSQL's immediate shutdown).
  setTimeout(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    process.exit(0);
  }, processes.size > 0 ? 1500 : 0);
});
