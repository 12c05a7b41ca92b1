/**
 * Test harness for the participant server: a real server on 127.0.0.1:0 with a real store (a SQLite file
 * in a temp dir, or with `engine: 'postgres'` a fresh database in the test cluster), real HTTP (fetch) and
 * real socket.io clients. Used by the integration tests beside it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as connect, type Socket } from 'socket.io-client';
import { createLogger } from '../../lib/logger';
import { type RunningServer, type StartServerOptions } from '../../server/app';
import { startTandem } from '../../wiring/startTandem';
import type { Envelope } from '../../common/envelope';
import type { AckData, ClientEventName, ClientPayload, ClientToServerEvents, ServerToClientEvents } from '../../common/events';
import type { JoinedSession } from '../../common/http';
import type { StoreEngine } from '../../lib/storage';
import { withClusterPseudonymKey } from './clusterKey';
import { createTestStoreTarget } from './testStores';

export type ParticipantClient = Socket<ServerToClientEvents, ClientToServerEvents>;

export interface TestServer {
  server: RunningServer;
  dataDir: string;
  sockets: ParticipantClient[];
  close(): Promise<void>;
}

export async function startTestServer(options: Partial<StartServerOptions> & { engine?: StoreEngine } = {}): Promise<TestServer> {
  const { engine = 'sqlite', ...rest } = options;
  const target = engine === 'sqlite' ? { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-server-')), databaseUrl: undefined } : await createTestStoreTarget(engine, 'server');
  // A node joining a database other nodes use (databaseUrl given) shares their pseudonym key.
  const dataDir = rest.dataDir ?? (rest.databaseUrl ? withClusterPseudonymKey(target.dataDir) : target.dataDir);
  options = rest;
  const server = await startTandem({ dataDir, databaseUrl: target.databaseUrl, port: 0, host: '127.0.0.1', offlineReplyDelayMs: 0, offline: { tokensPerSecond: 0 }, env: {}, logger: createLogger('error'), ...options });
  const sockets: ParticipantClient[] = [];
  return {
    server,
    dataDir,
    sockets,
    async close() {
      for (const s of sockets) s.disconnect();
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

/** Joins from a study link; throws unless it opens a session (a preview or a resume-code prompt throws). */
export async function join(t: TestServer, studyId: string, params: Record<string, string>): Promise<JoinedSession> {
  const res = await postJson(`${t.server.url}/api/join`, { studyId, params });
  if (!res.body.ok || res.body.data.preview || res.body.data.resumeCodeRequired) throw new Error(`join failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function connectSocket(t: TestServer, token: string): Promise<ParticipantClient> {
  const socket: ParticipantClient = connect(t.server.url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
  t.sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => reject(err));
  });
  return socket;
}

/** Emits a client event and resolves with the ack envelope. */
export function call<E extends ClientEventName>(socket: ParticipantClient, event: E, payload: ClientPayload<E> | unknown): Promise<Envelope<AckData<E>>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 10_000);
    (socket.emit as any)(event, payload, (reply: Envelope<AckData<E>>) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}

/** Like call() but throws unless ok, returning the data. */
export async function callOk<E extends ClientEventName>(socket: ParticipantClient, event: E, payload: ClientPayload<E>): Promise<AckData<E>> {
  const reply = await call(socket, event, payload);
  if (!reply.ok) throw new Error(`${event} failed: ${JSON.stringify(reply.error)}`);
  return reply.data;
}

/** Resolves with the next push of `event` that matches `predicate`. */
export function nextPush<E extends keyof ServerToClientEvents>(
  socket: ParticipantClient,
  event: E,
  predicate: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} push within ${timeoutMs} ms`)), timeoutMs);
    const handler = (payload: any) => {
      if (!predicate(payload)) return;
      clearTimeout(timer);
      (socket.off as any)(event, handler);
      resolve(payload);
    };
    (socket.on as any)(event, handler);
  });
}

/** Polls `probe` every 50 ms until it returns something truthy (then resolves with it); throws after timeoutMs. */
export async function eventually<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Consent + instructions: leaves the session in the workspace. */
export async function toWorkspace(socket: ParticipantClient): Promise<void> {
  const state = await callOk(socket, 'session:state', {});
  await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
  await callOk(socket, 'step:advance', { from: 'instructions', clientTs: Date.now() });
}

/** join + connectSocket + toWorkspace: a participant with a connected socket, in the workspace. */
export async function joinToWorkspace(t: TestServer, studyId: string, params: Record<string, string>): Promise<JoinedSession & { socket: ParticipantClient }> {
  const joined = await join(t, studyId, params);
  const socket = await connectSocket(t, joined.token);
  await toWorkspace(socket);
  return { ...joined, socket };
}

export const ROOT = path.resolve(import.meta.dirname, '../..');
