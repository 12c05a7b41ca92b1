import { describe, expect, it } from 'vitest';
import { GroupAgents, GroupConfig, SpeakingPolicy } from './group';

const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

describe('group block', () => {
  const base = { size: { min: 2, max: 3 }, lobby: { timeout_seconds: 60, on_timeout: 'release' } };

  it('fills form_by and dropout defaults', () => {
    const g = GroupConfig.parse(base);
    expect(g.form_by).toBe('arrival');
    expect(g.dropout).toEqual({ grace_seconds: 60, policy: 'continue' });
  });

  it('refuses min above max and an unknown timeout action', () => {
    expect(issues(GroupConfig.safeParse({ ...base, size: { min: 4, max: 3 } }))).toEqual(['size.min: min must not exceed max']);
    expect(issues(GroupConfig.safeParse({ ...base, lobby: { timeout_seconds: 60, on_timeout: 'wait' } }))[0]).toMatch(/^lobby\.on_timeout: /);
  });

  it('checks that a quota fills exactly size.max seats', () => {
    const quota = (seats: Record<string, number>) => ({ ...base, form_by: { quota: { source: 'url_param', key: 'expertise', seats } } });
    expect(GroupConfig.safeParse(quota({ expert: 1, novice: 2 })).success).toBe(true);
    expect(issues(GroupConfig.safeParse(quota({ expert: 1, novice: 1 })))).toEqual(['form_by.quota.seats: the quota\'s seats add up to 2, but size.max is 3']);
  });
});

describe('agents block', () => {
  const agent = { name: 'Facilitator', model: 'gpt-4o-mini', system_prompt: 'Help.', speaks: 'every_message', max_replies: 5 };

  it('accepts each speaking policy and refuses an unbounded one', () => {
    for (const speaks of ['every_message', 'when_addressed', 'round_robin', { every_n_messages: 3 }, { idle_seconds: 30 }])
      expect(SpeakingPolicy.safeParse(speaks).success, JSON.stringify(speaks)).toBe(true);
    expect(SpeakingPolicy.safeParse({ every_n_messages: 0 }).success).toBe(false);
    expect(SpeakingPolicy.safeParse({ idle_seconds: 1 }).success).toBe(false);
    // max_replies is the bound every policy needs.
    const { max_replies: _dropped, ...unbounded } = agent;
    expect(issues(GroupAgents.safeParse([unbounded]))[0]).toMatch(/^0\.max_replies: /);
  });

  it('refuses duplicate names and names that look like a person\'s', () => {
    expect(issues(GroupAgents.safeParse([agent, { ...agent, name: 'facilitator' }]))).toEqual(['1.name: duplicate agent name "facilitator"']);
    expect(issues(GroupAgents.safeParse([{ ...agent, name: 'Member 2' }]))).toEqual(['0.name: "Member 2" is the form of people\'s names (Member N)']);
    expect(GroupAgents.safeParse([{ ...agent, name: '<b>x</b>' }]).success).toBe(false);
  });
});
