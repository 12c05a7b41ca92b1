import fc from 'fast-check';
import { io, type Socket } from 'socket.io-client';
import { startFakeOpenAI } from '../support/fakeOpenAI';
import { clientEvents } from '../../common/events';
import { countRows, diffCounts } from './dbSnapshot';
import { handshakeFuzzCase, joinFuzzCase, schemaAccepts, socketFuzzCase, uploadFuzzCase, type HttpFuzzCase, type SocketFuzzCase } from './fuzzInputs';
import { joinStudy } from '../../research/simulation/http';
import { readState } from './checkResume';
import { ServerChild } from './serverChild';

/**
 * Property-based fuzzing of the participant surface: every socket event (malformed payloads, missing
 * acks, extra arguments, unknown events, prototype-pollution keys, huge strings) and the HTTP bodies of
 * POST /api/join and the upload route. Properties: the server never crashes (its process stays up and
 * answers), every malformed input gets an error envelope (socket ack ok:false / HTTP 4xx with
 * ok:false, never code "internal"), and no row is written (row counts per table before == after,
 * ignoring the connection.opened/closed events a reconnect legitimately records).
 */
/** Stay well below the server's per-socket limit of 120 events per 10 s. */
const EVENTS_PER_SOCKET = 100;

export interface FuzzOptions {
  socketRuns: number;
  joinRuns: number;
  uploadRuns: number;
  seed?: number;
  studyId?: string;
  onProgress?: (what: string, done: number) => void;
}

export interface FuzzReport {
  seed: number;
  casesRun: { socket: number; handshake: number; join: number; upload: number; skippedValid: number };
  violations: string[];
  crashed: boolean;
  rowChanges: string[];
  reconnects: number;
  /** Positive control: one VALID telemetry event afterwards does show up in the row counts. */
  controlWriteDetected: boolean;
}

const describe = (x: unknown) => {
  const s = JSON.stringify(x, (_k, v) => (typeof v === 'string' && v.length > 80 ? `${v.slice(0, 40)}…(${v.length} chars)` : v));
  return (s ?? String(x)).slice(0, 300);
};

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const seed = o.seed ?? Date.now() % 2 ** 31;
  const studyId = o.studyId ?? 'visualization';
  const fake = await startFakeOpenAI();
  const server = new ServerChild({ providerBaseURL: fake.url });
  const violations: string[] = [];
  const casesRun = { socket: 0, handshake: 0, join: 0, upload: 0, skippedValid: 0 };
  let reconnects = 0;
  let socket: Socket | null = null;
  try {
    await server.start();
    // A session at the workspace step: every event's validation path is reachable from here.
    const joined = await joinStudy(server.url, studyId, { participant_label: `fuzz-${seed}` }, 20_000);
    const state = await readState(server.url, joined.token);
    // The server limits events per socket (120 per 10 s); the fuzzer sends 2 per case, so it opens a
    // fresh connection every EVENTS_PER_SOCKET cases to reach validation rather than the limiter.
    let eventsOnSocket = 0;
    let rotating = false;
    const connect = async () => {
      rotating = true;
      socket?.close();
      rotating = false;
      socket = io(server.url, { auth: { token: joined.token }, transports: ['websocket'], forceNew: true, reconnectionDelay: 100 });
      socket.on('disconnect', () => {
        if (!rotating) reconnects += 1;
      });
      await new Promise<void>((resolve, reject) => {
        socket!.once('connect', () => resolve());
        socket!.once('connect_error', reject);
      });
      eventsOnSocket = 0;
    };
    await connect();
    const ask = (event: string, payload: unknown, timeoutMs = 5_000) =>
      new Promise<unknown>((resolve) => {
        eventsOnSocket += 1;
        const timer = setTimeout(() => resolve(undefined), timeoutMs);
        socket!.emit(event, payload, (reply: unknown) => {
          clearTimeout(timer);
          resolve(reply);
        });
      });
    await ask('consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
    await ask('step:advance', { from: 'instructions', clientTs: Date.now() });
    const fields = state.task.fields;
    const imageField = fields.find((f) => f.kind === 'image')?.id ?? 'no-image-field';
    const textField = fields.find((f) => f.kind !== 'image')?.id ?? 'no-text-field';

    /** null when the server process is up and answers session:state; otherwise why not. */
    const unhealthy = async (): Promise<string | null> => {
      if (!server.alive) return `server process exited\n${server.stderrTail().slice(-1500)}`;
      for (let i = 0; i < 20 && !socket!.connected; i++) await new Promise((r) => setTimeout(r, 250));
      if (!socket!.connected) return 'socket could not reconnect within 5 s';
      const reply = (await ask('session:state', { clientTs: Date.now() }, 10_000)) as { ok?: boolean; error?: unknown } | undefined;
      return reply?.ok === true ? null : `session:state answered ${describe(reply)}`;
    };

    const before = (await countRows({ dataDir: server.dataDir }));

    await fc.assert(
      fc.asyncProperty(socketFuzzCase(), async (c: SocketFuzzCase) => {
        if (schemaAccepts(c.event, c.args)) {
          casesRun.skippedValid += 1;
          return;
        }
        casesRun.socket += 1;
        o.onProgress?.('socket', casesRun.socket);
        if (eventsOnSocket >= EVENTS_PER_SOCKET) await connect();
        eventsOnSocket += 1;
        const known = Object.prototype.hasOwnProperty.call(clientEvents, c.event);
        if (c.noAck || !known) {
          socket!.emit(c.event, ...c.args);
        } else {
          const reply = await new Promise<unknown>((resolve) => {
            const timer = setTimeout(() => resolve('<no ack within 5 s>'), 5_000);
            socket!.emit(c.event, ...c.args, (r: unknown) => {
              clearTimeout(timer);
              resolve(r);
            });
          });
          const env = reply as { ok?: unknown; error?: { code?: unknown; message?: unknown } };
          if (!env || env.ok !== false || typeof env.error?.code !== 'string' || typeof env.error?.message !== 'string')
            violations.push(`socket ${c.event} ${describe(c.args)} → not an error envelope: ${describe(reply)}`);
          else if (env.error.code === 'internal') violations.push(`socket ${c.event} ${describe(c.args)} → code internal: ${describe(env.error.message)}`);
        }
        const problem = await unhealthy();
        if (problem) violations.push(`socket ${c.event} ${describe(c.args)} → afterwards: ${problem}`);
      }),
      { numRuns: o.socketRuns, seed },
    );

    // Handshakes: anything but a valid participant token is refused with connect_error "unauthorized".
    await fc.assert(
      fc.asyncProperty(handshakeFuzzCase(), async (auth) => {
        casesRun.handshake += 1;
        const outcome = await new Promise<string>((resolve) => {
          const probe = io(server.url, { auth: auth as Record<string, unknown>, transports: ['websocket'], forceNew: true, reconnection: false });
          const timer = setTimeout(() => finish('<no answer within 5 s>'), 5_000);
          let finished = false;
          function finish(what: string) {
            if (finished) return;
            finished = true;
            clearTimeout(timer);
            probe.close();
            resolve(what);
          }
          probe.once('connect', () => finish('connected'));
          probe.once('connect_error', (e) => finish(`connect_error ${e.message}`));
          // socket.io's own parser rejects a CONNECT whose auth is not an object by closing the transport.
          // (The client also closes its transport just BEFORE emitting connect_error, hence the deferral.)
          probe.io.once('close', () => setTimeout(() => finish('transport closed by server'), 50));
        });
        const isObject = typeof auth === 'object' && auth !== null && !Array.isArray(auth);
        const refused = outcome === 'connect_error unauthorized' || (!isObject && outcome === 'transport closed by server');
        if (!refused) violations.push(`handshake auth ${describe(auth)} → ${outcome}`);
      }),
      { numRuns: Math.max(10, Math.ceil(o.joinRuns / 2)), seed },
    );

    const postCase = async (c: HttpFuzzCase, what: 'join' | 'upload') => {
      casesRun[what] += 1;
      o.onProgress?.(what, casesRun[what]);
      let status = 0;
      let body: unknown;
      try {
        const res = await fetch(`${server.url}${c.path}`, {
          method: 'POST',
          headers: { ...(c.contentType ? { 'content-type': c.contentType } : {}), ...c.headers },
          body: typeof c.body === 'string' ? c.body : new Uint8Array(c.body),
        });
        status = res.status;
        const text = await res.text();
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      } catch (error) {
        // The server may reset a connection whose body is over the limit before reading it all.
        body = `<fetch failed: ${String(error)}>`;
      }
      const env = body as { ok?: unknown; error?: { code?: unknown } };
      const label = `${what} ${c.path.slice(0, 80)} ${c.contentType} ${describe(c.headers)} ${describe(typeof c.body === 'string' ? c.body : `<${c.body.length} bytes>`)}`;
      if (status === 0) {
        if (!server.alive) violations.push(`${label} → server died`);
      } else if (status < 400 || status >= 500) violations.push(`${label} → HTTP ${status} ${describe(body)}`);
      else if (env?.ok !== false || typeof env.error?.code !== 'string') violations.push(`${label} → HTTP ${status} without error envelope: ${describe(body)}`);
      if (!server.alive) violations.push(`${label} → server process exited`);
    };

    await fc.assert(fc.asyncProperty(joinFuzzCase(), (c) => postCase(c, 'join')), { numRuns: o.joinRuns, seed });
    await fc.assert(fc.asyncProperty(uploadFuzzCase(joined.token, imageField, textField), (c) => postCase(c, 'upload')), { numRuns: o.uploadRuns, seed });

    const finalProblem = await unhealthy();
    if (finalProblem) violations.push(`at the end: ${finalProblem}`);
    const crashed = !server.alive;
    const after = (await countRows({ dataDir: server.dataDir }));
    const rowChanges = diffCounts(before, after, /^events\[connection\./);
    // Positive control: the row counter must notice a legitimate write.
    await ask('telemetry', { kind: 'focus', clientTs: Date.now() });
    const control = diffCounts(after, (await countRows({ dataDir: server.dataDir })), /^events\[connection\./);
    return { seed, casesRun, violations, crashed, rowChanges, reconnects, controlWriteDetected: control.length > 0 };
  } finally {
    (socket as Socket | null)?.close();
    if (server.alive) await server.stop();
    await server.dispose();
    await fake.close();
  }
}
