/**
 * Group members that keep working through node faults (bench/cluster/groupFaultRun.ts): each joins through HAProxy,
 * consents, enters the lobby and, once seated, alternates room messages and edits of the shared plan (a Yjs update
 * appending a marker of its own) until told to stop. A socket that drops reconnects through HAProxy to a live node,
 * asks where it stands (group:status: the room's history and the document), and resends what was not acknowledged
 * (a message with its client id, stored once; an edit with its bytes, harmless twice). What was acknowledged is
 * recorded for the check against the store.
 */
import { io as connect, type Socket } from 'socket.io-client';
import * as Y from 'yjs';
import type { Envelope } from '../../common/envelope';
import type { GroupView } from '../../common/groupEvents';
import type { SessionState } from '../../common/session';
import { joinStudy } from '../../research/simulation/http';

export interface AckedMessage {
  clientId: string;
  text: string;
  groupSeq: number;
}
export interface AckedEdit {
  marker: string;
  update: string;
  seq: number;
}

export interface GroupMemberRecord {
  label: string;
  sessionId: string;
  token: string;
  groupId: string | null;
  messages: AckedMessage[];
  edits: AckedEdit[];
  /** Socket connections after the first (each a reconnect through HAProxy). */
  reconnects: number;
  /** Sends and edits that timed out or failed and were tried again. */
  retries: number;
  errors: string[];
}

const FIELD = 'plan';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const toBase64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

/** One emit with its ack; rejects on a timeout or an error envelope. */
function call<T>(socket: Socket, event: string, payload: unknown, timeoutMs = 5_000): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.timeout(timeoutMs).emit(event, payload, (err: Error | null, reply: Envelope<T>) => {
      if (err) reject(new Error(`${event}: no ack`));
      else if (!reply.ok) reject(new Error(`${event}: ${reply.error.code}: ${reply.error.message}`));
      else resolve(reply.data);
    });
  });
}

export class GroupFaultMember {
  readonly record: GroupMemberRecord;
  private socket: Socket | undefined;
  private readonly doc = new Y.Doc();
  private connects = 0;
  private ready: Promise<void> = Promise.resolve();

  constructor(
    private readonly baseUrl: string,
    private readonly studyId: string,
    label: string,
  ) {
    this.record = { label, sessionId: '', token: '', groupId: null, messages: [], edits: [], reconnects: 0, retries: 0, errors: [] };
  }

  /** Joins, consents and enters the lobby; resolves once the member is seated. */
  async start(deadlineMs: number): Promise<void> {
    const joined = await joinStudy(this.baseUrl, this.studyId, { participant_label: this.record.label }, deadlineMs);
    this.record.sessionId = joined.sessionId;
    this.record.token = joined.token;
    const socket = connect(this.baseUrl, { auth: { token: joined.token }, transports: ['websocket'], reconnectionDelay: 200, reconnectionDelayMax: 1_000 });
    this.socket = socket;
    socket.on('group:doc', (p: { groupId: string; update: string }) => {
      if (p.groupId === this.record.groupId) Y.applyUpdate(this.doc, Buffer.from(p.update, 'base64'));
    });
    socket.on('group:view', (v: GroupView) => this.apply(v));
    socket.on('connect', () => {
      if (++this.connects > 1) this.record.reconnects += 1;
      this.ready = this.place().catch((err: unknown) => void this.record.errors.push(`rejoin: ${(err as Error).message}`));
    });
    const until = performance.now() + deadlineMs;
    while (this.record.groupId === null) {
      if (performance.now() > until) throw new Error(`${this.record.label}: never seated`);
      await sleep(100);
    }
  }

  /** Consents if it has not, enters the lobby if it waits for one, and takes the room's state (after every connect). */
  private async place(): Promise<void> {
    const socket = this.socket!;
    const state = await call<SessionState>(socket, 'session:state', {});
    if (state.step === 'consent') await call(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
    let view = await call<GroupView>(socket, 'group:status', {});
    if (view.state === 'not_joined') view = await call<GroupView>(socket, 'group:lobby:join', {});
    this.apply(view);
  }

  private apply(view: GroupView): void {
    if (view.state !== 'grouped') return;
    this.record.groupId = view.groupId;
    for (const d of view.doc) for (const u of d.updates) Y.applyUpdate(this.doc, Buffer.from(u, 'base64'));
  }

  /** Retries `fn` on a live connection until it is acknowledged (or the deadline passes). */
  private async acknowledged<T>(what: string, fn: (socket: Socket) => Promise<T>, deadline: number): Promise<T | null> {
    for (let attempt = 0; performance.now() < deadline; attempt++) {
      const socket = this.socket!;
      if (!socket.connected) {
        await sleep(50);
        continue;
      }
      await this.ready;
      try {
        return await fn(socket);
      } catch (err) {
        this.record.retries += 1;
        if (attempt > 0 && !/no ack|session_over/.test((err as Error).message)) this.record.errors.push(`${what}: ${(err as Error).message}`);
        await sleep(100);
      }
    }
    this.record.errors.push(`${what}: not acknowledged before the deadline`);
    return null;
  }

  /** Messages and edits, one of each per turn, until `stopped()` (or maxTurns). */
  async work(o: { maxTurns: number; thinkMs: number; stopped: () => boolean; deadlineMs: number }): Promise<void> {
    const deadline = performance.now() + o.deadlineMs;
    const groupId = this.record.groupId!;
    for (let turn = 1; turn <= o.maxTurns && !o.stopped(); turn++) {
      const clientId = `${this.record.label}-m${turn}`;
      const text = `${this.record.label} says ${turn}`;
      const sent = await this.acknowledged(clientId, (s) => call<{ groupSeq: number }>(s, 'group:send', { groupId, clientId, text }), deadline);
      if (sent) this.record.messages.push({ clientId, text, groupSeq: sent.groupSeq });
      await sleep(o.thinkMs * (0.5 + Math.random()));

      const marker = `[${this.record.label}-e${turn}]`;
      const before = Y.encodeStateVector(this.doc);
      const text2 = this.doc.getText(FIELD);
      text2.insert(text2.length, marker);
      const update = toBase64(Y.encodeStateAsUpdate(this.doc, before));
      const edited = await this.acknowledged(marker, (s) => call<{ seq: number }>(s, 'group:doc:update', { groupId, field: FIELD, update }), deadline);
      if (edited) this.record.edits.push({ marker, update, seq: edited.seq });
      await sleep(o.thinkMs * (0.5 + Math.random()));
    }
  }

  /** The member's view now, through a fresh connection (after the run: the room as a reload would show it). */
  async finalView(deadlineMs: number): Promise<GroupView | null> {
    const deadline = performance.now() + deadlineMs;
    while (performance.now() < deadline) {
      const socket = connect(this.baseUrl, { auth: { token: this.record.token }, transports: ['websocket'], reconnection: false, forceNew: true });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        return await call<GroupView>(socket, 'group:status', {}, 10_000);
      } catch {
        await sleep(200);
      } finally {
        socket.disconnect();
      }
    }
    return null;
  }

  close(): void {
    this.socket?.disconnect();
  }
}
