/**
 * When an agent speaks (pure). Only a person's message is a trigger, never an agent's (its own included), so agents
 * cannot set each other off; every policy stops at max_replies. The idle policy fires once per silence after a
 * person's message: an agent's own reply is not a person's message, so it never re-arms itself.
 */
import type { GroupAgent } from '../../common/group';
import type { GroupMemberRow, GroupMessageRow } from '../../lib/storage';

export interface SpeakingInput {
  agent: GroupAgent;
  /** The room's messages, oldest first, the trigger included. */
  messages: readonly GroupMessageRow[];
  /** People seated and not gone (round robin waits for each of them). */
  presentPeople: readonly string[];
}

const repliesOf = (agent: GroupAgent, messages: readonly GroupMessageRow[]) => messages.filter((m) => m.senderKind === 'agent' && m.senderName === agent.name);

/** Whether the agent answers the room's latest message (a person's). */
export function speaksAfterMessage({ agent, messages, presentPeople }: SpeakingInput): boolean {
  const last = messages.at(-1);
  if (!last || last.senderKind !== 'participant') return false;
  if (repliesOf(agent, messages).length >= agent.max_replies) return false;
  const speaks = agent.speaks;
  if (speaks === 'every_message') return true;
  if (speaks === 'when_addressed') return addresses(last.content, agent.name);
  if (speaks === 'round_robin') {
    // A round is over when every person present has spoken since the agent's last turn.
    const lastTurn = messages.findLastIndex((m) => m.senderKind === 'agent' && m.senderName === agent.name);
    const spoke = new Set(messages.slice(lastTurn + 1).flatMap((m) => (m.senderKind === 'participant' && m.sessionId ? [m.sessionId] : [])));
    return presentPeople.length > 0 && presentPeople.every((p) => spoke.has(p));
  }
  if ('every_n_messages' in speaks) return messages.filter((m) => m.senderKind === 'participant').length % speaks.every_n_messages === 0;
  return false;
}

/** Whether an idle agent speaks now: the last message is a person's, S seconds old, and the agent has replies left. */
export function speaksWhenIdle(agent: GroupAgent, messages: readonly GroupMessageRow[], now: number): boolean {
  if (typeof agent.speaks !== 'object' || !('idle_seconds' in agent.speaks)) return false;
  const last = messages.at(-1);
  if (!last || last.senderKind !== 'participant') return false;
  return now - last.createdAt >= agent.speaks.idle_seconds * 1000 && repliesOf(agent, messages).length < agent.max_replies;
}

/** "@Name" or the name as a whole word, any case. */
export function addresses(text: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])@?${escaped}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

/** The stand-in agent's name for a seat (disclosed as an AI to the others). */
export const standInName = (displayName: string) => `AI for ${displayName}`;

/** The agents that speak in a group: the condition's, and a stand-in for each seat an agent took over. */
export function agentsOfGroup(agents: readonly GroupAgent[], members: readonly GroupMemberRow[]): GroupAgent[] {
  const named = new Set(agents.map((a) => a.name));
  const model = agents[0];
  const standIns = members
    .filter((m) => m.kind === 'agent' && !named.has(m.displayName))
    .map(
      (m): GroupAgent => ({
        name: m.displayName,
        provider: model?.provider ?? 'openai',
        model: model?.model ?? 'gpt-4o-mini',
        system_prompt: 'You take the seat of a group member who left. Help the group finish its task; say you are an AI if asked. Be brief.',
        temperature: 0.7,
        max_tokens: 400,
        speaks: 'round_robin',
        max_replies: 20,
      }),
    );
  return [...agents, ...standIns];
}

