/**
 * Who is in the room, and dropouts. A member whose sockets are all gone (on every node) is away; away longer than
 * the condition's grace_seconds, dropped, and the dropout policy applies: the group goes on, ends (its members get
 * the group_ended code), or an AI agent takes the seat, announced in the room. Each step is a group event.
 */
import type { GroupMemberRow, GroupRow } from '../../lib/storage';
import type { GroupContext } from './groupContext';
import type { GroupRoom } from './room';
import crypto from 'node:crypto';
import { groupViewFor, messageView } from './views';
import { standInName } from './speaking';

const GONE = new Set(['dropped', 'left', 'replaced', 'withdrawn']);

export class GroupPresence {
  constructor(
    private readonly g: GroupContext,
    private readonly room: GroupRoom,
  ) {}

  /** A socket of the session connected (a reload, another tab, another node): into its group's room, present again. */
  async connected(sessionId: string): Promise<{ groupId: string } | { lobbyKey: string } | null> {
    const { store, now } = this.g.ctx;
    const member = await store.groups.memberBySession(sessionId);
    if (!member) {
      const entry = await store.groups.getLobbyEntry(sessionId);
      return entry && entry.outcome === null ? { lobbyKey: `${entry.studyId}/${entry.conditionId}/${entry.taskId}` } : null;
    }
    if (member.status === 'away') {
      const group = await store.groups.getGroup(member.groupId);
      await store.groups.setMemberStatus(member.groupId, member.seat, 'present', now());
      await store.groups.appendEvent({
        studyId: group!.studyId,
        groupId: member.groupId,
        sessionId,
        type: 'reconnected',
        serverTs: now(),
        payload: { away_ms: now() - (member.awaySince ?? now()) },
      });
      await this.room.pushPresence(member.groupId);
    }
    return { groupId: member.groupId };
  }

  /** A socket closed: when it was the session's last one anywhere, the member is away. */
  async disconnected(sessionId: string): Promise<void> {
    const { store } = this.g.ctx;
    const member = await store.groups.memberBySession(sessionId);
    if (!member || member.status !== 'present') return;
    if ((await this.g.push.socketCount(sessionId)) > 0) return;
    await this.markAway(member);
  }

  private async markAway(member: GroupMemberRow): Promise<void> {
    const { store, now } = this.g.ctx;
    const group = await store.groups.getGroup(member.groupId);
    if (!group || group.status !== 'active') return;
    this.g.typing.get(member.groupId)?.delete(member.seat);
    await store.groups.setMemberStatus(member.groupId, member.seat, 'away', now());
    await store.groups.appendEvent({ studyId: group.studyId, groupId: group.id, sessionId: member.sessionId, type: 'disconnected', serverTs: now(), payload: {} });
    await this.room.pushPresence(group.id);
  }

  /**
   * The dropout sweep (one node at a time): present members with no socket anywhere (their node died) become away;
   * away members past the grace are dropped and the policy applies.
   */
  async sweep(): Promise<void> {
    const { store, now, config } = this.g.ctx;
    for (const group of await store.groups.listActiveGroups()) {
      const condition = config.studies.get(group.studyId)?.conditions.find((c) => c.id === group.conditionId);
      if (!condition?.group) continue;
      const members = await store.groups.listMembers(group.id);
      for (const m of members) {
        if (m.kind !== 'participant' || m.sessionId === null || GONE.has(m.status)) continue;
        if (m.status === 'present') {
          if ((await this.g.push.socketCount(m.sessionId)) === 0) await this.markAway(m);
          continue;
        }
        // A reconnect that raced the last socket's disconnect left the member away while connected.
        if ((await this.g.push.socketCount(m.sessionId)) > 0) {
          await this.connected(m.sessionId);
          continue;
        }
        const graceMs = condition.group.dropout.grace_seconds * 1000;
        if (m.awaySince !== null && now() - m.awaySince >= graceMs) await this.drop(group, m, condition.group.dropout.policy, graceMs);
      }
    }
  }

  private async drop(group: GroupRow, m: GroupMemberRow, policy: 'continue' | 'end_group' | 'replace_with_agent', graceMs: number): Promise<void> {
    const { store, now } = this.g.ctx;
    const at = now();
    const ended = await store.transaction(async (tx) => {
      const fresh = (await tx.groups.listMembers(group.id)).find((x) => x.seat === m.seat);
      if (!fresh || fresh.status !== 'away') return null;
      await tx.groups.setMemberStatus(group.id, m.seat, 'dropped', at);
      await tx.groups.appendEvent({ studyId: group.studyId, groupId: group.id, sessionId: m.sessionId, type: 'dropped', serverTs: at, payload: { grace_ms: graceMs, away_ms: at - (m.awaySince ?? at), policy } });
      if (policy === 'end_group') {
        await tx.groups.endGroup(group.id, 'dropout', at);
        await tx.groups.appendEvent({ studyId: group.studyId, groupId: group.id, sessionId: null, type: 'ended', serverTs: at, payload: { reason: 'dropout' } });
        return 'ended';
      }
      const text =
        policy === 'replace_with_agent'
          ? `${m.displayName} left the group. An AI agent, "${standInName(m.displayName)}", takes their seat.`
          : `${m.displayName} left the group.`;
      if (policy === 'replace_with_agent') {
        await tx.groups.replaceMemberWithAgent(group.id, m.seat, standInName(m.displayName), at);
        await tx.groups.appendEvent({ studyId: group.studyId, groupId: group.id, sessionId: m.sessionId, type: 'replaced', serverTs: at, payload: { agent: standInName(m.displayName), seat: m.seat } });
      }
      const { message } = await tx.groups.appendMessage({ id: crypto.randomUUID(), groupId: group.id, senderKind: 'system', sessionId: null, senderName: 'Tandem', clientId: null, content: text, tokens: 0, createdAt: at });
      return message;
    });
    if (ended === null) return;
    const members = await store.groups.listMembers(group.id);
    if (ended === 'ended') {
      for (const x of members) if (x.kind === 'participant' && x.sessionId) this.g.push.toSession(x.sessionId, 'group:view', await groupViewFor(this.g, x.sessionId));
      return;
    }
    this.g.push.toGroup(group.id, 'group:message', messageView(ended, members));
    await this.room.pushPresence(group.id);
  }
}
