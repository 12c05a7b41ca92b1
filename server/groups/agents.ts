/**
 * Agents speaking in a group room through the provider interface (lib/llm): the condition's provider resolution with
 * the agent's model and prompt, streamed to every member as group:delta, stored as one message when done. A model that
 * fails posts nothing; the failure is a group event (agent_failed) and the room goes on.
 */
import crypto from 'node:crypto';
import type { GroupAgent } from '../../common/group';
import type { Condition } from '../../common/study';
import { countTokens } from '../../common/tokens';
import type { ChatMessage } from '../../lib/llm/provider';
import type { GroupMessageRow, GroupRow } from '../../lib/storage';
import type { GroupContext } from './groupContext';
import { messageView } from './views';

/** The agent as a condition, so that providers resolve it like any condition (openai, or offline without a key). */
const agentCondition = (condition: Condition, agent: GroupAgent): Condition => ({
  ...condition,
  provider: agent.provider,
  model: agent.model,
  system_prompt: agent.system_prompt,
  temperature: agent.temperature,
  max_tokens: agent.max_tokens,
  assistant_label: agent.name,
});

/** The room as the agent reads it: its own messages as assistant turns, everyone else's named. */
export function agentPrompt(agent: GroupAgent, instructions: string, messages: readonly GroupMessageRow[]): ChatMessage[] {
  const system = `${agent.system_prompt.trim()}\n\nYou are "${agent.name}" in a group chat. The task the group works on:\n${instructions.trim()}`;
  return [
    { role: 'system', content: system },
    ...messages.map((m): ChatMessage => (m.senderKind === 'agent' && m.senderName === agent.name ? { role: 'assistant', content: m.content } : { role: 'user', content: `${m.senderName}: ${m.content}` })),
  ];
}

export class GroupAgents {
  /** Agents replying on this node now ("group/name"): one reply at a time per agent. */
  private readonly running = new Set<string>();
  private readonly aborts = new Set<AbortController>();

  constructor(private readonly g: GroupContext) {}

  /** Runs the agent's reply unless it is already replying here; resolves when it is stored (or failed). */
  async reply(group: GroupRow, agent: GroupAgent): Promise<void> {
    const key = `${group.id}/${agent.name}`;
    if (this.running.has(key)) return;
    this.running.add(key);
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      await this.run(group, agent, abort.signal);
    } catch (err) {
      this.g.ctx.log.warn({ err, groupId: group.id, agent: agent.name }, 'group agent reply failed');
    } finally {
      this.running.delete(key);
      this.aborts.delete(abort);
    }
  }

  private async run(group: GroupRow, agent: GroupAgent, signal: AbortSignal): Promise<void> {
    const { ctx, push } = this.g;
    const study = ctx.config.studies.get(group.studyId);
    const condition = study?.conditions.find((c) => c.id === group.conditionId);
    const task = study?.tasks.find((t) => t.id === group.taskId);
    if (!study || !condition || !task) return;
    const [members, messages] = await Promise.all([ctx.store.groups.listMembers(group.id), ctx.store.groups.listMessages(group.id)]);
    const seat = members.find((m) => m.kind === 'agent' && m.displayName === agent.name)?.seat;
    if (seat === undefined) return;
    const afterSeq = messages.at(-1)?.groupSeq ?? 0;
    if (await this.failedAt(group.id, agent.name, afterSeq)) return;
    const { provider } = ctx.providers(agentCondition(condition, agent));
    const replyId = crypto.randomUUID();
    let text = '';
    const result = await provider.complete({
      model: agent.model,
      messages: agentPrompt(agent, task.instructions, messages),
      temperature: agent.temperature,
      maxTokens: agent.max_tokens,
      signal,
      onDelta: (delta) => {
        text += delta;
        push.toGroup(group.id, 'group:delta', { groupId: group.id, replyId, seat, senderName: agent.name, text });
      },
    });
    const now = ctx.now();
    if (result.error || result.finishReason === 'aborted' || result.text.trim() === '') {
      await ctx.store.groups.appendEvent({
        studyId: group.studyId,
        groupId: group.id,
        sessionId: null,
        type: 'agent_failed',
        serverTs: now,
        payload: { agent: agent.name, reason: result.error?.message ?? result.finishReason, kind: result.error?.kind ?? null, after_seq: afterSeq },
      });
      return;
    }
    const { message } = await ctx.store.groups.appendMessage({
      id: replyId,
      groupId: group.id,
      senderKind: 'agent',
      sessionId: null,
      senderName: agent.name,
      clientId: null,
      content: result.text,
      tokens: result.usage?.completionTokens ?? countTokens(result.text),
      createdAt: now,
    });
    push.toGroup(group.id, 'group:message', messageView(message, members));
  }

  /** Whether this agent's turn on the room as it stood at `afterSeq` already failed (on any node). */
  private async failedAt(groupId: string, agentName: string, afterSeq: number): Promise<boolean> {
    const events = await this.g.ctx.store.groups.listGroupEvents(groupId);
    return events.some((e) => e.type === 'agent_failed' && e.payload.agent === agentName && e.payload.after_seq === afterSeq);
  }

  /** Stops every reply running here (the server is closing). */
  stop(): void {
    for (const a of this.aborts) a.abort();
  }

  /** Waits until no agent replies here (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await new Promise((r) => setTimeout(r, 10));
  }
}
