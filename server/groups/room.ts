/**
 * The group room: one chat for every person and agent of a group, and the shared artifact's document updates. The
 * group an event acts on is the socket's session's own: an event naming another group (a forged id) is refused as
 * forbidden and reads or writes nothing.
 */
import crypto from 'node:crypto';
import * as Y from 'yjs';
import type { GroupClientPayload, GroupMessageView } from '../../common/groupEvents';
import { countTokens } from '../../common/tokens';
import type { GroupMemberRow, GroupMessageRow, GroupRow } from '../../lib/storage';
import { spokenByWizard } from '../../common/group';
import type { GroupMonitorTap } from './monitorTap';
import { ServiceError, sessionContextOf, type SessionContext } from '../services/serviceContext';
import type { GroupAgents } from './agents';
import type { GroupContext } from './groupContext';
import { agentsOfGroup, speaksAfterMessage } from './speaking';
import { memberViews, messageView, researcherMessageView } from './views';

/** Edits (Yjs updates) one member may make in a group: a typist's updates are batched by the client, ~1 per 300 ms. */
export const MAX_DOC_UPDATES_PER_MEMBER = 20_000;
const GONE = new Set(['dropped', 'left', 'replaced', 'withdrawn']);

interface Seat {
  member: GroupMemberRow;
  group: GroupRow;
  s: SessionContext;
}

export class GroupRoom {
  constructor(
    private readonly g: GroupContext,
    private readonly agents: GroupAgents,
    private readonly monitor?: GroupMonitorTap,
  ) {}

  /** The caller's seat in `groupId`, or forbidden (not a member of that group, or gone from it). */
  async seatOf(sessionId: string, groupId: string, event: string, forWriting: boolean): Promise<Seat> {
    const { store } = this.g.ctx;
    const member = await store.groups.memberBySession(sessionId);
    if (!member || member.groupId !== groupId) throw new ServiceError('forbidden', `${event}: not a member of that group`, 'groupId');
    const [group, session] = await Promise.all([store.groups.getGroup(groupId), store.sessions.get(sessionId)]);
    if (!group || !session) throw new ServiceError('not_found', `${event}: no such group`);
    if (forWriting && (group.status !== 'active' || GONE.has(member.status))) throw new ServiceError('session_over', `${event}: the group's session has ended`);
    return { member, group, s: sessionContextOf(this.g.ctx, session) };
  }

  async send(sessionId: string, p: GroupClientPayload<'group:send'>): Promise<{ groupSeq: number }> {
    const { member, group, s } = await this.seatOf(sessionId, p.groupId, 'group:send', true);
    const { store, now } = this.g.ctx;
    if (p.text.length > s.study.chat.max_message_chars) throw new ServiceError('too_large', `group:send: text: at most ${s.study.chat.max_message_chars} characters`, 'text');
    // A resend of a stored message answers with it, also at the budget (its ack was lost, not the message).
    const stored = await store.groups.findMessageByClientId(sessionId, p.clientId);
    if (stored) return { groupSeq: stored.groupSeq };
    if ((await store.groups.countMemberMessages(sessionId)) >= s.study.chat.max_user_messages)
      throw new ServiceError('limit_reached', `group:send: at most ${s.study.chat.max_user_messages} messages per member`);
    const { message, inserted } = await store.groups.appendMessage({
      id: crypto.randomUUID(),
      groupId: group.id,
      senderKind: 'participant',
      sessionId,
      senderName: member.displayName,
      clientId: p.clientId,
      content: p.text,
      tokens: countTokens(p.text),
      createdAt: now(),
    });
    if (inserted) {
      const members = await store.groups.listMembers(group.id);
      this.g.push.toGroup(group.id, 'group:message', messageView(message, members));
      this.setTyping(group.id, member.seat, false, members);
      void this.triggerAgents(group, s);
    }
    return { groupSeq: message.groupSeq };
  }

  async history(sessionId: string, p: GroupClientPayload<'group:history'>): Promise<{ messages: GroupMessageView[] }> {
    await this.seatOf(sessionId, p.groupId, 'group:history', false);
    const { store } = this.g.ctx;
    const [members, messages] = await Promise.all([store.groups.listMembers(p.groupId), store.groups.listMessages(p.groupId, p.afterSeq)]);
    return { messages: messages.map((m) => messageView(m, members)) };
  }

  async typing(sessionId: string, p: GroupClientPayload<'group:typing'>): Promise<{ typing: boolean }> {
    const { member } = await this.seatOf(sessionId, p.groupId, 'group:typing', true);
    this.setTyping(p.groupId, member.seat, p.typing, await this.g.ctx.store.groups.listMembers(p.groupId));
    return { typing: p.typing };
  }

  /** Stores one Yjs update of a shared field (every edit is in the trajectory) and relays it to the group. */
  async docUpdate(sessionId: string, p: GroupClientPayload<'group:doc:update'>): Promise<{ seq: number }> {
    const { s, group } = await this.seatOf(sessionId, p.groupId, 'group:doc:update', true);
    const field = s.task.fields.find((f) => f.id === p.field);
    if (!field || field.kind === 'image') throw new ServiceError('invalid_input', `group:doc:update: field: no shared text field "${p.field}"`, 'field');
    try {
      Y.decodeUpdate(Buffer.from(p.update, 'base64'));
    } catch {
      throw new ServiceError('invalid_input', 'group:doc:update: update: not a Yjs update', 'update');
    }
    const { store, now } = this.g.ctx;
    if ((await store.groups.countMemberDocUpdates(sessionId)) >= MAX_DOC_UPDATES_PER_MEMBER)
      throw new ServiceError('limit_reached', `group:doc:update: at most ${MAX_DOC_UPDATES_PER_MEMBER} edits per member`);
    const seq = await store.groups.appendDocUpdate({ groupId: group.id, sessionId, fieldId: p.field, update: p.update, createdAt: now() });
    this.g.push.toGroup(group.id, 'group:doc', { groupId: group.id, field: p.field, update: p.update, seq });
    return { seq };
  }

  /**
   * A researcher speaks as one of the group's wizard agents (server/wizard/ calls it): stored with sender_kind
   * researcher under the agent's name (never the researcher's identity), shown to the members as the agent.
   * Refused when the group has ended, the agent is not a wizard agent of the condition, or its max_replies is used up.
   */
  async speakAsAgent(groupId: string, agentName: string, text: string): Promise<GroupMessageRow> {
    const { store, now, config } = this.g.ctx;
    const group = await store.groups.getGroup(groupId);
    if (!group) throw new ServiceError('not_found', 'no such group', 'groupId');
    if (group.status !== 'active') throw new ServiceError('session_over', 'the group\'s session has ended');
    const study = config.studies.get(group.studyId);
    const agent = study?.conditions.find((c) => c.id === group.conditionId)?.agents?.find((a) => a.name === agentName);
    if (!study || !agent || !spokenByWizard(agent)) throw new ServiceError('forbidden', `agent: "${agentName}" is not spoken by a researcher in this group`, 'agent');
    if (text.length > study.chat.max_message_chars) throw new ServiceError('too_large', `text: at most ${study.chat.max_message_chars} characters`, 'text');
    // Counted and written under one keyed lock (the store's lobby lock, keyed by the agent's seat), so that two
    // researchers sending at once on two nodes cannot pass max_replies together.
    const message = await store.transaction(async (tx) => {
      await tx.groups.lockLobby(`wizard-agent:${groupId}/${agent.name}`);
      const spoken = (await tx.groups.listMessages(groupId)).filter((m) => (m.senderKind === 'researcher' || m.senderKind === 'agent') && m.senderName === agent.name).length;
      if (spoken >= agent.max_replies) throw new ServiceError('limit_reached', `${agent.name} has said its ${agent.max_replies} messages (max_replies)`);
      const appended = await tx.groups.appendMessage({
        id: crypto.randomUUID(),
        groupId,
        senderKind: 'researcher',
        sessionId: null,
        senderName: agent.name,
        clientId: null,
        content: text,
        tokens: countTokens(text),
        createdAt: now(),
      });
      return appended.message;
    });
    this.g.push.toGroup(groupId, 'group:message', messageView(message, await store.groups.listMembers(groupId)));
    this.monitor?.researcherMessage(groupId, researcherMessageView(message));
    return message;
  }

  /** Pushes the members' presence to the group. */
  async pushPresence(groupId: string): Promise<void> {
    const members = await this.g.ctx.store.groups.listMembers(groupId);
    this.g.push.toGroup(groupId, 'group:presence', { groupId, members: memberViews(this.g, groupId, members) });
  }

  private setTyping(groupId: string, seat: number, typing: boolean, members: readonly GroupMemberRow[]): void {
    const set = this.g.typing.get(groupId) ?? new Set<number>();
    if (typing === set.has(seat)) return;
    if (typing) set.add(seat);
    else set.delete(seat);
    if (set.size === 0) this.g.typing.delete(groupId);
    else this.g.typing.set(groupId, set);
    this.g.push.toGroup(groupId, 'group:presence', { groupId, members: memberViews(this.g, groupId, members) });
  }

  /** After a person's message: each agent whose policy says so replies (one at a time per agent). */
  private async triggerAgents(group: GroupRow, s: SessionContext): Promise<void> {
    try {
      const { store } = this.g.ctx;
      const [messages, members] = await Promise.all([store.groups.listMessages(group.id), store.groups.listMembers(group.id)]);
      const agents = agentsOfGroup(s.condition.agents ?? [], members);
      const presentPeople = members.flatMap((m) => (m.kind === 'participant' && m.sessionId && !GONE.has(m.status) ? [m.sessionId] : []));
      // An agent a researcher speaks as (Wizard of Oz) is never run by its model.
      for (const agent of agents) if (!spokenByWizard(agent) && speaksAfterMessage({ agent, messages, presentPeople })) void this.agents.reply(group, agent);
    } catch (err) {
      this.g.ctx.log.warn({ err, groupId: group.id }, 'could not decide the group agents\' turn');
    }
  }
}
