/**
 * Real socket.io clients of group sessions for integration tests: group events with their acks, pushes collected,
 * and a person who joined and consented (tests/integration/groupWithdrawal, groupCopy, groupPolicies).
 */
import crypto from 'node:crypto';
import * as Y from 'yjs';
import type { Envelope } from '../../common/envelope';
import type { GroupClientEventName, GroupPush, GroupPushName, GroupView } from '../../common/groupEvents';
import { callOk, connectSocket, join, type ParticipantClient, type TestServer } from './integrationHarness';

export function groupCall(socket: ParticipantClient, event: GroupClientEventName, payload: unknown): Promise<Envelope<any>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${event}`)), 10_000);
    (socket.emit as any)(event, payload, (reply: Envelope<unknown>) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}

export async function groupOk<T = any>(socket: ParticipantClient, event: GroupClientEventName, payload: unknown = {}): Promise<T> {
  const reply = await groupCall(socket, event, payload);
  if (!reply.ok) throw new Error(`${event} failed: ${JSON.stringify(reply.error)}`);
  return reply.data as T;
}

/** Every push of `event` this socket receives from now on. */
export function collect<E extends GroupPushName>(socket: ParticipantClient, event: E): GroupPush<E>[] {
  const seen: GroupPush<E>[] = [];
  (socket.on as any)(event, (p: GroupPush<E>) => seen.push(p));
  return seen;
}

export const grouped = (v: GroupView) => (v.state === 'grouped' ? v : null);

export interface GroupPerson {
  label: string;
  sessionId: string;
  /** The session's token (what the link's page holds), to connect again. */
  token: string;
  socket: ParticipantClient;
  /** This person's copy of the shared document (their edits are sent from it). */
  doc: Y.Doc;
}

/** A person who joined `studyId` (label = their platform id) and consented, with one socket. */
export async function consentedPerson(t: TestServer, studyId: string, params: Record<string, string> = {}): Promise<GroupPerson> {
  const label = `p${crypto.randomUUID().slice(0, 8)}`;
  const joined = await join(t, studyId, { participant_label: label, ...params });
  const socket = await connectSocket(t, joined.token);
  const state = await callOk(socket, 'session:state', {});
  await callOk(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
  return { label, sessionId: joined.sessionId, token: joined.token, socket, doc: new Y.Doc() };
}

/**
 * Edits `field` of the person's document (insert `text` at `at`) and sends that one update, as the room's client
 * does; the others' documents get it too (as the relay would give it to them). Returns the stored seq.
 */
export async function editShared(groupId: string, person: GroupPerson, others: readonly GroupPerson[], field: string, at: number, text: string): Promise<number> {
  const before = Y.encodeStateVector(person.doc);
  person.doc.getText(field).insert(at, text);
  const update = Y.encodeStateAsUpdate(person.doc, before);
  for (const o of others) Y.applyUpdate(o.doc, update);
  return (await groupOk<{ seq: number }>(person.socket, 'group:doc:update', { groupId, field, update: Buffer.from(update).toString('base64') })).seq;
}

/** The shared document a view's stored updates rebuild. */
export function rebuiltDoc(view: GroupView): Y.Doc {
  const doc = new Y.Doc();
  if (view.state === 'grouped') for (const d of view.doc) for (const u of d.updates) Y.applyUpdate(doc, Buffer.from(u, 'base64'));
  return doc;
}

/** The ways `canary` can stand in stored bytes: as text, and as base64 at each of the three byte alignments. */
export function canaryNeedles(canary: string): string[] {
  const bytes = Buffer.from(canary, 'utf8');
  const needles = [canary];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
    needles.push(encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6)));
  }
  return needles;
}
