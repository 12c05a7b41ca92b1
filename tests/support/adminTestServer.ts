import pino from 'pino';
import type { RunningServer } from '../../server/app';
import { FAST_OFFLINE_REPLIES, startTempDataDirServer } from './serverAndBrowser';

/**
 * Helpers for admin integration and browser tests: a real server on a random port with a temp DATA_DIR,
 * a known researcher password, and small HTTP helpers that keep cookies like a browser would.
 */

export const TEST_ADMIN_PASSWORD = 'correct-horse-battery-staple';

export interface AdminTestServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  close(): Promise<void>;
}

export async function startAdminTestServer(env: Record<string, string> = {}, options: { clientDir?: string } = {}): Promise<AdminTestServer> {
  process.env.ADMIN_PASSWORD = TEST_ADMIN_PASSWORD;
  for (const [k, v] of Object.entries(env)) process.env[k] = v;
  // close() also removes the temp DATA_DIR.
  return startTempDataDirServer('tandem-admin-', {
    port: 0,
    host: '127.0.0.1',
    ...FAST_OFFLINE_REPLIES,
    env: {},
    logger: pino({ level: 'silent' }),
    ...(options.clientDir ? { clientDir: options.clientDir } : {}),
  });
}

export interface AdminClient {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Response>;
  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
}

function cookiesFrom(res: Response): Record<string, string> {
  const jar: Record<string, string> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const i = pair!.indexOf('=');
    jar[pair!.slice(0, i)] = pair!.slice(i + 1);
  }
  return jar;
}

export async function loginAdmin(url: string, password = TEST_ADMIN_PASSWORD): Promise<AdminClient> {
  const res = await fetch(`${url}/api/admin/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }) });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  const jar = cookiesFrom(res);
  const cookie = Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');
  const csrf = jar.tandem_admin_csrf ?? '';
  return {
    cookie,
    csrf,
    get: (path) => fetch(`${url}${path}`, { headers: { cookie } }),
    post: (path, body = {}, headers = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf, ...headers },
        body: JSON.stringify(body),
      }),
  };
}

/** Joins a study as a participant through the public API; returns the participant token and session id. */
export async function joinAsParticipant(url: string, studyId: string, params: Record<string, string>): Promise<{ token: string; sessionId: string }> {
  const res = await fetch(`${url}/api/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ studyId, params }) });
  const body = (await res.json()) as { ok: boolean; data?: { token: string; sessionId: string }; error?: unknown };
  if (!body.ok || !body.data) throw new Error(`join failed: ${JSON.stringify(body)}`);
  return body.data;
}
