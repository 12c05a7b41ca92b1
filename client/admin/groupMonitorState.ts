/**
 * The monitor's groups between snapshots (pure): each `monitor:group` push applied to the last snapshot's groups, so
 * that messages, presence and the shared document change as they happen. A snapshot replaces all of it (it is read
 * from the store); a push for a group the snapshot does not know is dropped until the next snapshot brings it.
 */
import * as Y from 'yjs';
import type { MonitorGroup, MonitorGroupPush, MonitorGroups } from '../../common/groupMonitor';

/** Agents' replies while they stream, per group and reply id. */
export type StreamingReplies = Record<string, Record<string, { senderName: string; text: string }>>;

const toBase64 = (bytes: Uint8Array) => {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
};
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** The document with one more update, and each field's text again. */
export function applyDocUpdate(doc: MonitorGroup['doc'], field: string, update: string): MonitorGroup['doc'] {
  const y = new Y.Doc();
  try {
    if (doc.state) Y.applyUpdate(y, fromBase64(doc.state));
    Y.applyUpdate(y, fromBase64(update));
  } catch {
    return doc;
  }
  const fields = [...new Set([...doc.fields.map((f) => f.field), field])].sort();
  return { state: toBase64(Y.encodeStateAsUpdate(y)), fields: fields.map((f) => ({ field: f, text: y.getText(f).toString() })) };
}

function applyToGroup(g: MonitorGroup, push: Exclude<MonitorGroupPush, { kind: 'changed' | 'delta' }>): MonitorGroup {
  if (push.kind === 'message') {
    // By group_seq: a researcher's message arrives as the agent the members see, then as the researcher's.
    const messages = [...g.messages.filter((m) => m.groupSeq !== push.message.groupSeq), push.message].sort((a, b) => a.groupSeq - b.groupSeq);
    return { ...g, messages };
  }
  if (push.kind === 'presence') {
    const before = new Map(g.members.map((m) => [m.seat, m]));
    return {
      ...g,
      members: push.members.map((m) => {
        const old = before.get(m.seat);
        const sameSeat = old !== undefined && old.kind === m.kind && old.name === m.name;
        return {
          ...m,
          sessionId: sameSeat ? old.sessionId : null,
          // Since when is the server's (the next snapshot brings it); this browser's clock is not the server's.
          awaySince: m.status === 'away' && old?.status === 'away' ? old.awaySince : null,
          standIn: (old?.standIn ?? false) || (old?.kind === 'participant' && m.kind === 'agent'),
        };
      }),
    };
  }
  return { ...g, doc: applyDocUpdate(g.doc, push.field, push.update) };
}

export function applyGroupPush(groups: MonitorGroups, push: MonitorGroupPush): MonitorGroups {
  if (push.kind === 'changed' || push.kind === 'delta') return groups;
  if (!groups.groups.some((g) => g.groupId === push.groupId)) return groups;
  return { ...groups, groups: groups.groups.map((g) => (g.groupId === push.groupId ? applyToGroup(g, push) : g)) };
}

/** A streamed fragment replaces the reply's text so far; the sender's stored message ends its stream. */
export function applyStreaming(streaming: StreamingReplies, push: MonitorGroupPush): StreamingReplies {
  if (push.kind === 'delta') return { ...streaming, [push.groupId]: { ...streaming[push.groupId], [push.replyId]: { senderName: push.senderName, text: push.text } } };
  if (push.kind !== 'message' || !streaming[push.groupId]) return streaming;
  const left = Object.fromEntries(Object.entries(streaming[push.groupId]!).filter(([, r]) => r.senderName !== push.message.senderName));
  return { ...streaming, [push.groupId]: left };
}
