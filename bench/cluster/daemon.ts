import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * A foreground server process of the cluster (redis-server, haproxy) that the harness starts, waits for
 * (its TCP port accepts connections), restarts on the same port and stops. It runs in its own process group
 * (detached), so a Ctrl-C in the terminal reaches only the harness, which then stops everything in order.
 */
export interface DaemonSpec {
  name: string;
  command: string;
  args: string[];
  /** The port that accepts connections once it is ready. */
  port: number;
  /** Called with every new pid (start and restart), e.g. to tell the orphan guard. */
  onPid?: (pid: number | undefined, previous: number | undefined) => void;
}

export class Daemon {
  private child: ChildProcess | null = null;
  private output = '';

  constructor(private readonly spec: DaemonSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(timeoutMs = 15_000): Promise<void> {
    const previous = this.child?.pid;
    this.output = '';
    const child = spawn(this.spec.command, this.spec.args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString('utf8')).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.spec.onPid?.(child.pid, previous);
    const deadline = Date.now() + timeoutMs;
    while (!(await accepts(this.spec.port))) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.spec.name} exited (${child.exitCode ?? child.signalCode}) before listening on ${this.spec.port}:\n${this.output}`);
      if (Date.now() > deadline) {
        await this.stop('SIGKILL');
        throw new Error(`${this.spec.name} did not listen on 127.0.0.1:${this.spec.port} within ${timeoutMs} ms:\n${this.output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Signals the process group and waits until the process has gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid!, signal);
    } catch {
      child.kill(signal);
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }

  async restart(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }

  outputTail(): string {
    return this.output;
  }
}

export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The path of `command` on PATH (or in /usr/sbin, where Debian puts haproxy), or null. */
export function findCommand(command: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${command} || ls /usr/sbin/${command} 2>/dev/null`], { encoding: 'utf8' });
  const found = r.stdout.trim().split('\n')[0];
  return found ? found : null;
}
