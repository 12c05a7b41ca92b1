/**
 * Simulated people in a group study, over real HTTP and socket.io like the browser: each joins (participant_label
 * sim-<run>-<n>), consents, waits in the lobby, chats in the room, edits the shared plan (a Yjs update), and then
 * submits and answers the survey on their own; with `dropout`, a seeded share of them leave the room instead (their
 * socket closes for good). It measures what the room promises: every acknowledged message reaches every member still
 * there (fan-out latency from the send to each member's receipt, and the count of deliveries that never came).
 * A person's words come from a script or an LLM playing them (agentParticipants.ts); every session it opens carries
 * the simulated flag (common/simulatedParticipant.ts), which the server records in a pilot study.
 */
import { io as connect, type Socket } from 'socket.io-client';
import * as Y from 'yjs';
import type { Envelope } from '../../common/envelope';
import type { GroupMessageView, GroupView } from '../../common/groupEvents';
import type { SessionState } from '../../common/session';
import { artifactValues, surveyAnswers } from './participantInputs';
import { postJson } from './http';
import { SIMULATED_PARAM } from '../../common/simulatedParticipant';
import { scriptedWriter, type ParticipantWriter } from './agentParticipants';

export interface GroupSimulationOptions {
  url: string;
  study: string;
  participants: number;
  runId: string;
  /** Messages each person sends in the room. */
  turns: number;
  /** Share of people who leave the room before the end (seeded). */
  dropout: number;
  seed: number;
  /** Pause between a person's messages, ms. */
  thinkMs: number;
  /** How long a person waits for the lobby and for deliveries, ms. */
  timeoutMs: number;
  /** Who writes the people's messages (default: the script). */
  writer?: ParticipantWriter;
}

export interface GroupSimulationSummary {
  participants: number;
  grouped: number;
  released: number;
  droppedOut: number;
  completed: number;
  groups: number;
  messagesSent: number;
  /** Deliveries expected (each sent message × each other member still in the room when it was sent). */
  deliveriesExpected: number;
  deliveriesLost: number;
  /** Send-to-receipt times of every delivery, ms. */
  fanoutMs: number[];
  errors: string[];
  /** "script" or the model that played the people. */
  writer: string;
  /** Turns whose model call failed (the scripted line was sent instead). */
  writerFailures: number;
  /** Room messages of every sender (agents' replies included) × each member still there, as stored at the end. */
  roomDeliveriesExpected: number;
  /** Of those, the ones the member never received live (a gap in its group_seq). */
  roomDeliveriesMissing: number;
}

/** mulberry32: a small seeded generator, so a run with the same --seed drops the same people. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function call<T>(socket: Socket, event: string, payload: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    socket.timeout(30_000).emit(event, payload, (err: Error | null, reply: Envelope<T>) => {
      if (err) reject(new Error(`${event}: no ack`));
      else if (!reply.ok) reject(new Error(`${event}: ${reply.error.code}: ${reply.error.message}`));
      else resolve(reply.data);
    });
  });
}

interface Person {
  index: number;
  socket: Socket;
  token: string;
  view: GroupView | null;
  leaves: boolean;
  received: Map<string, number>;
  task: { title: string; instructions: string };
  /** The room as this person saw it, by group_seq. */
  history: Map<number, GroupMessageView>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function enter(o: GroupSimulationOptions, index: number, leaves: boolean): Promise<Person> {
  const joined = await postJson(`${o.url}/api/join`, { studyId: o.study, params: { participant_label: `sim-${o.runId}-${index}`, [SIMULATED_PARAM]: '1' } });
  const body = joined.body as { ok: boolean; data?: { token: string } };
  if (!body.ok || !body.data) throw new Error(`join ${index}: HTTP ${joined.status}`);
  const socket = connect(o.url, { auth: { token: body.data.token }, transports: ['websocket'], reconnection: true, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const person: Person = { index, socket, token: body.data.token, view: null, leaves, received: new Map(), task: { title: '', instructions: '' }, history: new Map() };
  socket.on('group:view', (v: GroupView) => {
    person.view = v;
    if (v.state === 'grouped') for (const m of v.messages) person.history.set(m.groupSeq, m);
  });
  socket.on('group:message', (m: GroupMessageView) => {
    if (m.clientId && !person.received.has(m.clientId)) person.received.set(m.clientId, performance.timeOrigin + performance.now());
    person.history.set(m.groupSeq, m);
  });
  const state = await call<SessionState>(socket, 'session:state', {});
  person.task = { title: state.task.title, instructions: state.task.instructions };
  await call(socket, 'consent:respond', { accept: true, version: state.consent.version, clientTs: Date.now() });
  // Screening questions (group.screening) are answered by turns through their options, so a quota's values all come.
  const before = await call<GroupView>(socket, 'group:status', {});
  const screening = before.state === 'not_joined' ? (before.screening ?? []) : [];
  const answers = Object.fromEntries(screening.map((q) => [q.id, q.options[index % q.options.length]!.value]));
  const view = await call<GroupView>(socket, 'group:lobby:join', screening.length > 0 ? { answers } : {});
  if (view.state === 'none') throw new Error(`study "${o.study}" has no group condition: use the single-session simulation`);
  person.view = view;
  return person;
}

/**
 * The study's status from its public page (GET /api/studies/:id/public): the server records the simulated flag only
 * in a pilot study, so a run against a live one leaves its sessions unflagged. Null when the page does not answer.
 */
export async function studyStatus(url: string, study: string): Promise<string | null> {
  try {
    const res = await fetch(`${url}/api/studies/${encodeURIComponent(study)}/public`);
    const body = (await res.json()) as { ok?: boolean; data?: { status?: string } };
    return body.ok && typeof body.data?.status === 'string' ? body.data.status : null;
  } catch {
    return null;
  }
}

export async function runGroupSimulation(o: GroupSimulationOptions): Promise<GroupSimulationSummary> {
  const random = seededRandom(o.seed);
  const writer = o.writer ?? scriptedWriter;
  const summary: GroupSimulationSummary = { participants: o.participants, grouped: 0, released: 0, droppedOut: 0, completed: 0, groups: 0, messagesSent: 0, deliveriesExpected: 0, deliveriesLost: 0, fanoutMs: [], errors: [], writer: writer.label, writerFailures: 0, roomDeliveriesExpected: 0, roomDeliveriesMissing: 0 };
  const leaves = Array.from({ length: o.participants }, () => random() < o.dropout);
  const people: Person[] = [];
  for (let i = 0; i < o.participants; i++) {
    try {
      people.push(await enter(o, i, leaves[i]!));
    } catch (err) {
      summary.errors.push((err as Error).message);
    }
  }
  const until = Date.now() + o.timeoutMs;
  while (people.some((p) => p.view?.state === 'waiting') && Date.now() < until) await sleep(100);
  const byGroup = new Map<string, Person[]>();
  for (const p of people) {
    if (p.view?.state === 'grouped') {
      summary.grouped++;
      byGroup.set(p.view.groupId, [...(byGroup.get(p.view.groupId) ?? []), p]);
    } else if (p.view?.state === 'released') summary.released++;
  }
  summary.groups = byGroup.size;
  const sent: { clientId: string; groupId: string; from: Person; at: number; audience: Person[] }[] = [];
  await Promise.all(
    [...byGroup].map(async ([groupId, members]) => {
      for (let turn = 0; turn < o.turns; turn++) {
        for (const p of members) {
          if (!p.socket.connected) continue;
          if (p.leaves && turn === Math.floor(o.turns / 2)) {
            p.socket.disconnect();
            summary.droppedOut++;
            continue;
          }
          const clientId = `${o.runId}p${p.index}t${turn}`;
          try {
            const selfName = p.view?.state === 'grouped' ? p.view.displayName : `Member ${p.index}`;
            const history = [...p.history.values()].sort((a, b) => a.groupSeq - b.groupSeq);
            const written = await writer.write({ personIndex: p.index, turn, selfName, task: p.task, history });
            if (written.failed) summary.writerFailures++;
            const audience = members.filter((m) => m !== p && m.socket.connected);
            const at = performance.timeOrigin + performance.now();
            await call(p.socket, 'group:send', { groupId, clientId, text: written.text });
            sent.push({ clientId, groupId, from: p, at, audience });
            summary.messagesSent++;
            const doc = new Y.Doc();
            doc.getText('plan').insert(0, `${selfName}: ${written.text.split('\n')[0]!.slice(0, 200)}\n`);
            await call(p.socket, 'group:doc:update', { groupId, field: 'plan', update: Buffer.from(Y.encodeStateAsUpdate(doc)).toString('base64') }).catch(() => undefined);
          } catch (err) {
            summary.errors.push((err as Error).message);
          }
          if (o.thinkMs > 0) await sleep(o.thinkMs);
        }
      }
    }),
  );
  // Give the last deliveries time to arrive, then count what never did.
  const deliveredBy = Date.now() + Math.min(5_000, o.timeoutMs);
  const missing = () => sent.reduce((n, s) => n + s.audience.filter((m) => m.socket.connected && !m.received.has(s.clientId)).length, 0);
  while (missing() > 0 && Date.now() < deliveredBy) await sleep(50);
  for (const s of sent)
    for (const m of s.audience) {
      if (!m.socket.connected) continue;
      summary.deliveriesExpected++;
      const got = m.received.get(s.clientId);
      if (got === undefined) summary.deliveriesLost++;
      else summary.fanoutMs.push(got - s.at);
    }
  await countRoomGaps(people, summary, Math.min(10_000, o.timeoutMs));
  for (const p of people) {
    if (p.view?.state !== 'grouped' || !p.socket.connected) continue;
    try {
      await call(p.socket, 'step:advance', { from: 'instructions', clientTs: Date.now() });
      const state = await call<SessionState>(p.socket, 'session:state', {});
      await call(p.socket, 'artifact:submit', { fields: artifactValues(state, {}, o.turns), clientTs: Date.now() });
      const survey = await call<SessionState>(p.socket, 'session:state', {});
      await call(p.socket, 'survey:submit', { answers: surveyAnswers(survey, random), clientTs: Date.now() });
      summary.completed++;
    } catch (err) {
      summary.errors.push((err as Error).message);
    }
  }
  for (const p of people) p.socket.disconnect();
  return summary;
}

/**
 * Every message the room stored (people's and agents', whose replies may still be streaming when the people are
 * done) against what each member still there received live: waits up to `waitMs` for the stragglers, then counts
 * the stored messages a member never got.
 */
async function countRoomGaps(people: readonly Person[], summary: GroupSimulationSummary, waitMs: number): Promise<void> {
  const seated = people.filter((p) => p.view?.state === 'grouped' && p.socket.connected);
  const stored = async (p: Person) => {
    const groupId = (p.view as Extract<GroupView, { state: 'grouped' }>).groupId;
    return (await call<{ messages: GroupMessageView[] }>(p.socket, 'group:history', { groupId, afterSeq: 0 })).messages;
  };
  const gaps = async () => {
    let expected = 0;
    let missing = 0;
    for (const p of seated) {
      const messages = await stored(p).catch(() => [] as GroupMessageView[]);
      expected += messages.length;
      missing += messages.filter((m) => !p.history.has(m.groupSeq)).length;
    }
    return { expected, missing };
  };
  const until = Date.now() + waitMs;
  let g = await gaps();
  while (g.missing > 0 && Date.now() < until) {
    await sleep(250);
    g = await gaps();
  }
  summary.roomDeliveriesExpected = g.expected;
  summary.roomDeliveriesMissing = g.missing;
}
