/**
 * Helpers for the security tests: a server whose log lines are captured (to prove secrets never reach
 * the log), raw socket connections, and an admin login that does not depend on the admin test helpers.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { io as connect, type Socket } from 'socket.io-client';
import { startTestServer, type TestServer } from '../support/integrationHarness';
import type { StartServerOptions } from '../../server/app';

export interface LoggedServer extends TestServer {
  /** Every log line written so far, joined (level debug: one line per request too). */
  logText(): string;
}

/** A test server logging at debug level into memory. */
export async function startLoggedServer(options: Partial<StartServerOptions> = {}): Promise<LoggedServer> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const t = await startTestServer({ logger: pino({ level: 'debug' }, sink), ...options });
  return Object.assign(t, { logText: () => lines.join('') });
}

/**
 * A logged server whose researcher password is `password`: the admin side reads ADMIN_PASSWORD from
 * process.env when it mounts, so it is set for the start and put back as it was by close().
 */
export async function startAdminServer(password: string): Promise<LoggedServer> {
  const saved = process.env.ADMIN_PASSWORD;
  const restore = () => {
    if (saved === undefined) delete process.env.ADMIN_PASSWORD;
    else process.env.ADMIN_PASSWORD = saved;
  };
  process.env.ADMIN_PASSWORD = password;
  let t: LoggedServer;
  try {
    t = await startLoggedServer();
  } catch (err) {
    restore();
    throw err;
  }
  const closeServer = t.close.bind(t);
  return Object.assign(t, {
    close: async () => {
      try {
        await closeServer();
      } finally {
        restore();
      }
    },
  });
}

/** Connects a socket.io client and resolves with 'connected' or the connect_error message. */
export function tryConnect(url: string, options: { auth?: Record<string, unknown>; cookie?: string }): Promise<{ outcome: string; socket: Socket }> {
  const socket = connect(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.cookie ? { extraHeaders: { cookie: options.cookie } } : {}),
  });
  return new Promise((resolve) => {
    socket.once('connect', () => resolve({ outcome: 'connected', socket }));
    socket.once('connect_error', (err) => resolve({ outcome: err.message, socket }));
  });
}

/** Emits an event with an ack on a raw socket. */
export function emitAck(socket: Socket, event: string, payload: unknown): Promise<any> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 10_000);
    socket.emit(event, payload, (reply: unknown) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}

/** Logs in as the researcher (the admin side reads ADMIN_PASSWORD from process.env at start). */
export async function adminLogin(url: string, password: string): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
  if (res.status !== 200) throw new Error(`admin login failed: ${res.status} ${await res.text()}`);
  const jar = new Map(res.headers.getSetCookie().map((line) => line.split(';')[0]!.split('=') as [string, string]));
  return { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), csrf: jar.get('tandem_admin_csrf') ?? '' };
}

/** Things a response body must never contain: stack frames, file paths, SQL or driver errors. */
export const LEAK_PATTERN = /\n\s+at |node_modules|\/work\/|SQLITE_|SqliteError|SELECT |INSERT INTO|stack/i;
