import * as Y from 'yjs';
import { openStore } from '../../lib/storage';
import { reply, startFakeOpenAI } from '../../tests/support/fakeOpenAI';
import { startCluster, type AdapterKind } from './cluster';
import { GroupFaultMember, type GroupMemberRecord } from './groupFaultTraffic';

/**
 * Node kills mid-group (bench/node-faults.ts --groups N, tests/cluster/groupNodeKill.test.ts): 3·N people in groups of
 * three (studies/group-demo.yaml: an AI facilitator through the fake OpenAI server) chat and edit the shared plan
 * through HAProxy to a cluster of `nodes`; one node at a time is SIGKILLed `kills` times and restarted (never the
 * last one up). Members reconnect through HAProxy to a live node and resend what was not acknowledged. Then every
 * acknowledged message must be in the store once, under its client id, with its group_seq; every acknowledged edit
 * stored with its bytes, its marker in the document rebuilt from the store, and in each member's view after a reload.
 */
export interface GroupNodeFaultOptions {
  nodes: number;
  groups: number;
  kills: number;
  killEveryMs: number;
  adapter?: AdapterKind;
  /** Each member's pause between a message and an edit (jittered ×0.5–1.5). */
  thinkMs?: number;
  /** How long members go on after the last kill's node is back. */
  settleMs?: number;
  onEvent?: (line: string) => void;
}

export interface GroupNodeFaultResult {
  kills: number;
  restartMs: number[];
  members: number;
  groups: number;
  reconnects: number;
  retries: number;
  messagesAcked: number;
  editsAcked: number;
  /** Acknowledged but not in the store as acknowledged (client id, group_seq and text). */
  lostMessages: string[];
  /** Acknowledged edits whose bytes or marker the store (or the document rebuilt from it) does not have. */
  lostEdits: string[];
  /** Acknowledged messages or edits missing from a member's view after the run (a reload through HAProxy). */
  missingFromViews: string[];
  /** Messages stored more than once under one client id. */
  duplicatedMessages: string[];
  /** Edits stored twice (a resend of an update whose ack was cut): harmless to the document, counted. */
  resentEdits: number;
  errors: string[];
}

export async function runGroupNodeFaultScenario(o: GroupNodeFaultOptions): Promise<GroupNodeFaultResult> {
  const say = o.onEvent ?? (() => {});
  const fake = await startFakeOpenAI({ tokensPerSecond: 100, responder: () => reply('Noted: keep it short and agree on the schedule first.') });
  const cluster = await startCluster({ nodes: o.nodes, providerBaseURL: fake.url, adapter: o.adapter ?? 'redis', onLog: say }).catch(async (err: unknown) => {
    await fake.close();
    throw err;
  });
  const run = Date.now().toString(36);
  const people = Array.from({ length: o.groups * 3 }, (_, i) => new GroupFaultMember(cluster.url, 'group-demo', `gk-${run}-${i + 1}`));
  const restartMs: number[] = [];
  let kills = 0;
  let stop = false;
  try {
    // People enter three at a time, so that each three make one group (the demo's lobby seats 3 at once).
    for (let g = 0; g < o.groups; g++) await Promise.all(people.slice(g * 3, g * 3 + 3).map((p) => p.start(60_000)));
    say(`${people.length} people seated in ${new Set(people.map((p) => p.record.groupId)).size} groups`);
    const working = Promise.all(people.map((p) => p.work({ maxTurns: 500, thinkMs: o.thinkMs ?? 150, stopped: () => stop, deadlineMs: 240_000 })));
    let next = 0;
    for (let k = 0; k < o.kills; k++) {
      await new Promise((r) => setTimeout(r, o.killEveryMs));
      const node = cluster.nodes[next++ % cluster.nodes.length]!;
      say(`kill ${k + 1}: SIGKILL ${node.id} (pid ${node.pid}) mid-group`);
      const t0 = performance.now();
      await node.kill('SIGKILL');
      kills += 1;
      // Wait for it: with two nodes, the next kill must not take the last one up.
      await node.restart();
      restartMs.push(performance.now() - t0);
      say(`${node.id} back after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    await new Promise((r) => setTimeout(r, o.settleMs ?? 2_000));
    stop = true;
    await working;
    const views = await Promise.all(people.map((p) => p.finalView(30_000)));
    for (const p of people) p.close();
    for (const node of cluster.nodes) await node.kill('SIGTERM');
    const store = await openStore({ dataDir: cluster.dataDir, databaseUrl: cluster.databaseUrl });
    try {
      return { ...(await checkAgainstStore(store, people.map((p) => p.record), views)), kills, restartMs };
    } finally {
      await store.close();
    }
  } finally {
    stop = true;
    for (const p of people) p.close();
    await cluster.stop();
    await fake.close();
  }
}

type Checked = Omit<GroupNodeFaultResult, 'kills' | 'restartMs'>;

async function checkAgainstStore(store: Awaited<ReturnType<typeof openStore>>, records: GroupMemberRecord[], views: Awaited<ReturnType<GroupFaultMember['finalView']>>[]): Promise<Checked> {
  const lostMessages: string[] = [];
  const lostEdits: string[] = [];
  const missingFromViews: string[] = [];
  const duplicatedMessages: string[] = [];
  let resentEdits = 0;
  const groupIds = [...new Set(records.map((r) => r.groupId!))];
  for (const groupId of groupIds) {
    const messages = await store.groups.listMessages(groupId);
    const updates = await store.groups.listDocUpdates(groupId);
    const doc = new Y.Doc();
    for (const u of updates) Y.applyUpdate(doc, Buffer.from(u.update, 'base64'));
    const text = doc.getText('plan').toString();
    const bytes = new Map<string, number>();
    for (const u of updates) bytes.set(u.update, (bytes.get(u.update) ?? 0) + 1);
    resentEdits += [...bytes.values()].reduce((a, n) => a + n - 1, 0);
    records.forEach((r, i) => {
      if (r.groupId !== groupId) return;
      const view = views[i];
      const seen = view?.state === 'grouped' ? view : null;
      const viewDoc = new Y.Doc();
      for (const d of seen?.doc ?? []) for (const u of d.updates) Y.applyUpdate(viewDoc, Buffer.from(u, 'base64'));
      const viewText = viewDoc.getText('plan').toString();
      for (const m of r.messages) {
        const rows = messages.filter((x) => x.sessionId === r.sessionId && x.clientId === m.clientId);
        if (rows.length > 1) duplicatedMessages.push(m.clientId);
        if (rows.length === 0 || rows[0]!.groupSeq !== m.groupSeq || rows[0]!.content !== m.text) lostMessages.push(m.clientId);
        if (!seen?.messages.some((x) => x.groupSeq === m.groupSeq && x.text === m.text)) missingFromViews.push(`${r.label}: ${m.clientId}`);
      }
      for (const e of r.edits) {
        const row = updates.find((u) => u.seq === e.seq);
        if (!row || row.update !== e.update || !text.includes(e.marker)) lostEdits.push(e.marker);
        if (!viewText.includes(e.marker)) missingFromViews.push(`${r.label}: ${e.marker}`);
      }
    });
  }
  return {
    members: records.length,
    groups: groupIds.length,
    reconnects: records.reduce((a, r) => a + r.reconnects, 0),
    retries: records.reduce((a, r) => a + r.retries, 0),
    messagesAcked: records.reduce((a, r) => a + r.messages.length, 0),
    editsAcked: records.reduce((a, r) => a + r.edits.length, 0),
    lostMessages,
    lostEdits,
    missingFromViews,
    duplicatedMessages,
    resentEdits,
    errors: records.flatMap((r) => r.errors.map((e) => `${r.label}: ${e}`)),
  };
}

/** The report lines of a run. */
export function formatGroupFaultOutcome(r: GroupNodeFaultResult): string[] {
  return [
    `${r.groups} groups of 3 (${r.members} people); node kills ${r.kills}; reconnects ${r.reconnects}; resends after a cut ${r.retries}`,
    `acknowledged: ${r.messagesAcked} messages, ${r.editsAcked} shared-plan edits; lost ${r.lostMessages.length} messages, ${r.lostEdits.length} edits; missing after reload ${r.missingFromViews.length}; duplicated messages ${r.duplicatedMessages.length}; edits stored twice by a resend ${r.resentEdits}`,
    ...(r.errors.length ? [`errors (${r.errors.length}): ${r.errors.slice(0, 5).join(' | ')}`] : []),
  ];
}

export function groupFaultRunPassed(r: GroupNodeFaultResult): boolean {
  return r.lostMessages.length === 0 && r.lostEdits.length === 0 && r.missingFromViews.length === 0 && r.duplicatedMessages.length === 0 && r.errors.length === 0 && r.messagesAcked > 0;
}
