import { describe, expect, it } from 'vitest';
import { GroupAgent } from '../../common/group';
import type { GroupMessageRow } from '../../lib/storage';
import { addresses, speaksAfterMessage, speaksWhenIdle } from './speaking';

let seq = 0;
const person = (sessionId: string, content = 'hi', createdAt = 0): GroupMessageRow => ({
  id: `m${++seq}`, groupId: 'g', groupSeq: seq, senderKind: 'participant', sessionId, senderName: 'Member', clientId: `c${seq}`, content, tokens: 1, createdAt,
});
const agentSays = (name: string): GroupMessageRow => ({ ...person('x'), senderKind: 'agent', sessionId: null, senderName: name, clientId: null });
const agent = (speaks: unknown, max = 10) => GroupAgent.parse({ name: 'Facilitator', model: 'm', system_prompt: 'p', speaks, max_replies: max });

describe('speaking policies', () => {
  it('never answers an agent, itself included', () => {
    for (const speaks of ['every_message', 'round_robin', 'when_addressed', { every_n_messages: 1 }])
      expect(speaksAfterMessage({ agent: agent(speaks), messages: [person('a', 'Facilitator?'), agentSays('Other')], presentPeople: ['a'] })).toBe(false);
  });

  it('stops at max_replies', () => {
    const a = agent('every_message', 2);
    expect(speaksAfterMessage({ agent: a, messages: [person('a'), agentSays('Facilitator'), person('a')], presentPeople: ['a'] })).toBe(true);
    expect(speaksAfterMessage({ agent: a, messages: [agentSays('Facilitator'), agentSays('Facilitator'), person('a')], presentPeople: ['a'] })).toBe(false);
  });

  it('every_n_messages counts people\'s messages', () => {
    const a = agent({ every_n_messages: 3 });
    const msgs = [person('a'), person('b')];
    expect(speaksAfterMessage({ agent: a, messages: msgs, presentPeople: [] })).toBe(false);
    expect(speaksAfterMessage({ agent: a, messages: [...msgs, agentSays('Other'), person('a')], presentPeople: [] })).toBe(true);
  });

  it('round_robin waits for every person present since its last turn', () => {
    const a = agent('round_robin');
    const msgs = [person('a'), agentSays('Facilitator'), person('b')];
    expect(speaksAfterMessage({ agent: a, messages: msgs, presentPeople: ['a', 'b'] })).toBe(false);
    expect(speaksAfterMessage({ agent: a, messages: [...msgs, person('a')], presentPeople: ['a', 'b'] })).toBe(true);
  });

  it('when_addressed matches the name as a word or @name', () => {
    expect(addresses('@facilitator what now?', 'Facilitator')).toBe(true);
    expect(addresses('ok Facilitator.', 'Facilitator')).toBe(true);
    expect(addresses('the facilitators said', 'Facilitator')).toBe(false);
  });

  it('idle fires once per silence after a person\'s message', () => {
    const a = agent({ idle_seconds: 30 });
    expect(speaksWhenIdle(a, [person('a', 'x', 0)], 29_999)).toBe(false);
    expect(speaksWhenIdle(a, [person('a', 'x', 0)], 30_000)).toBe(true);
    expect(speaksWhenIdle(a, [person('a', 'x', 0), agentSays('Facilitator')], 90_000)).toBe(false);
  });
});
