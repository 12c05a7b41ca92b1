import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { MonitorGroup, MonitorGroups } from '../../common/groupMonitor';
import { applyGroupPush, applyStreaming } from './groupMonitorState';
import { presenceLabel } from './GroupMonitor';

const G = '5f0f7a3c-1d5e-4c43-9a5b-0a8c4f3e2d11';
const b64 = (u: Uint8Array) => Buffer.from(u).toString('base64');

function group(doc: Y.Doc): MonitorGroups {
  const g: MonitorGroup = {
    groupId: G,
    conditionId: 'facilitated',
    taskId: 'team-offsite',
    status: 'active',
    endReason: null,
    formedAt: 1,
    endedAt: null,
    members: [
      { seat: 1, name: 'Member 1', kind: 'participant', status: 'present', typing: false, sessionId: 's1', awaySince: null, standIn: false },
      { seat: 2, name: 'Facilitator', kind: 'agent', status: 'present', typing: false, sessionId: null, awaySince: null, standIn: false },
    ],
    messages: [{ groupSeq: 1, senderKind: 'participant', senderName: 'Member 1', text: 'hi', createdAt: 1 }],
    doc: { state: b64(Y.encodeStateAsUpdate(doc)), fields: [{ field: 'plan', text: doc.getText('plan').toString() }] },
    wizardAgents: [],
  };
  return { lobbies: [], groups: [g] };
}

describe('the monitor\'s groups between snapshots', () => {
  it('adds messages by group_seq; the researcher\'s view of a message replaces the members\' view of it', () => {
    let gs = group(new Y.Doc());
    gs = applyGroupPush(gs, { kind: 'message', studyId: 's', groupId: G, message: { groupSeq: 3, senderKind: 'agent', senderName: 'Facilitator', text: 'c', createdAt: 3 } });
    gs = applyGroupPush(gs, { kind: 'message', studyId: 's', groupId: G, message: { groupSeq: 2, senderKind: 'agent', senderName: 'Facilitator', text: 'b', createdAt: 2 } });
    gs = applyGroupPush(gs, { kind: 'message', studyId: 's', groupId: G, message: { groupSeq: 2, senderKind: 'researcher', senderName: 'Facilitator', text: 'b', createdAt: 2 } });
    expect(gs.groups[0]!.messages.map((m) => [m.groupSeq, m.senderKind])).toEqual([
      [1, 'participant'],
      [2, 'researcher'],
      [3, 'agent'],
    ]);
    // A group the snapshot does not hold yet is left to the next snapshot.
    const other = applyGroupPush(gs, { kind: 'message', studyId: 's', groupId: crypto.randomUUID(), message: { groupSeq: 1, senderKind: 'system', senderName: 'Tandem', text: 'x', createdAt: 1 } });
    expect(other).toBe(gs);
  });

  it('applies document updates to the snapshot\'s state', () => {
    const doc = new Y.Doc();
    doc.getText('plan').insert(0, 'lake');
    let gs = group(doc);
    const before = Y.encodeStateVector(doc);
    doc.getText('plan').insert(4, ' at 10:00');
    gs = applyGroupPush(gs, { kind: 'doc', studyId: 's', groupId: G, field: 'plan', update: b64(Y.encodeStateAsUpdate(doc, before)) });
    expect(gs.groups[0]!.doc.fields).toEqual([{ field: 'plan', text: 'lake at 10:00' }]);
    // A broken update leaves the document as it was.
    expect(applyGroupPush(gs, { kind: 'doc', studyId: 's', groupId: G, field: 'plan', update: 'AAAA' }).groups[0]!.doc.fields[0]!.text).toBe('lake at 10:00');
  });

  it('follows presence: typing, away, and a stand-in that took a person\'s seat', () => {
    let gs = group(new Y.Doc());
    const members = (m1: Partial<MonitorGroup['members'][number]>) => [
      { seat: 1, name: 'Member 1', kind: 'participant' as const, status: 'present' as const, typing: false, ...m1 },
      { seat: 2, name: 'Facilitator', kind: 'agent' as const, status: 'present' as const, typing: false },
    ];
    gs = applyGroupPush(gs, { kind: 'presence', studyId: 's', groupId: G, members: members({ typing: true }) });
    expect(gs.groups[0]!.members.map(presenceLabel)).toEqual(['typing', 'here']);
    expect(gs.groups[0]!.members[0]!.sessionId).toBe('s1');
    gs = applyGroupPush(gs, { kind: 'presence', studyId: 's', groupId: G, members: members({ status: 'away' }) });
    expect(gs.groups[0]!.members.map(presenceLabel)).toEqual(['disconnected', 'here']);
    gs = applyGroupPush(gs, { kind: 'presence', studyId: 's', groupId: G, members: members({ kind: 'agent', name: 'AI for Member 1' }) });
    expect(gs.groups[0]!.members.map(presenceLabel)).toEqual(['replaced by agent', 'here']);
    expect(gs.groups[0]!.members[0]!.sessionId).toBeNull();
    expect(presenceLabel({ ...gs.groups[0]!.members[1]!, status: 'dropped' })).toBe('dropped');
  });

  it('keeps a streaming reply until its sender\'s message arrives', () => {
    let s = applyStreaming({}, { kind: 'delta', studyId: 's', groupId: G, replyId: 'r1', senderName: 'Facilitator', text: 'Sure' });
    s = applyStreaming(s, { kind: 'delta', studyId: 's', groupId: G, replyId: 'r1', senderName: 'Facilitator', text: 'Sure, the lake' });
    expect(s[G]).toEqual({ r1: { senderName: 'Facilitator', text: 'Sure, the lake' } });
    s = applyStreaming(s, { kind: 'message', studyId: 's', groupId: G, message: { groupSeq: 2, senderKind: 'participant', senderName: 'Member 1', text: 'x', createdAt: 2 } });
    expect(Object.keys(s[G]!)).toEqual(['r1']);
    s = applyStreaming(s, { kind: 'message', studyId: 's', groupId: G, message: { groupSeq: 3, senderKind: 'agent', senderName: 'Facilitator', text: 'Sure, the lake', createdAt: 3 } });
    expect(s[G]).toEqual({});
  });
});
