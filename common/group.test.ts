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

describe('screening questions', () => {
  const base = { size: { min: 2, max: 3 }, lobby: { timeout_seconds: 60, on_timeout: 'release' } };
  const expertise = {
    id: 'expertise',
    text: 'How much have you planned events before?',
    options: [
      { value: 'expert', label: 'Often, as part of my job' },
      { value: 'novice', label: 'Rarely or never' },
    ],
  };
  const answerQuota = (key: string, seats: Record<string, number> = { expert: 1, novice: 2 }) => ({ quota: { source: 'answer', key, seats } });

  it('accepts a quota on an answer to a declared screening question, and a group without screening as before', () => {
    const g = GroupConfig.parse({ ...base, screening: [expertise], form_by: answerQuota('expertise') });
    expect(g.screening?.[0]?.options.map((o) => o.value)).toEqual(['expert', 'novice']);
    expect(GroupConfig.parse(base).screening).toBeUndefined();
    // A URL-parameter quota needs no screening question.
    expect(GroupConfig.safeParse({ ...base, form_by: { quota: { source: 'url_param', key: 'expertise', seats: { expert: 1, novice: 2 } } } }).success).toBe(true);
  });

  it('refuses a quota on an answer whose key names no screening question', () => {
    expect(issues(GroupConfig.safeParse({ ...base, form_by: answerQuota('expertise') }))).toEqual([
      'form_by.quota.key: no screening question "expertise": a quota on an answer reads a question of group.screening (add one with id expertise)',
    ]);
    expect(issues(GroupConfig.safeParse({ ...base, screening: [expertise], form_by: answerQuota('role') }))[0]).toMatch(/^form_by\.quota\.key: no screening question "role"/);
  });

  it('refuses quota seats for a value the question does not offer', () => {
    expect(issues(GroupConfig.safeParse({ ...base, screening: [expertise], form_by: answerQuota('expertise', { expert: 1, beginner: 2 }) }))).toEqual([
      'form_by.quota.seats.beginner: "beginner" is not an option of screening question "expertise"',
    ]);
  });

  it('refuses duplicate ids and values, a single option, an empty text and an unknown field', () => {
    expect(issues(GroupConfig.safeParse({ ...base, screening: [expertise, expertise] }))).toEqual(['screening.1.id: duplicate screening question id "expertise"']);
    const dupValue = { ...expertise, options: [expertise.options[0], expertise.options[0]] };
    expect(issues(GroupConfig.safeParse({ ...base, screening: [dupValue] }))).toEqual(['screening.0.options.1.value: duplicate option value "expert"']);
    expect(issues(GroupConfig.safeParse({ ...base, screening: [{ ...expertise, options: [expertise.options[0]] }] }))[0]).toMatch(/^screening\.0\.options: /);
    expect(issues(GroupConfig.safeParse({ ...base, screening: [{ ...expertise, text: '  ' }] }))[0]).toMatch(/^screening\.0\.text: /);
    expect(issues(GroupConfig.safeParse({ ...base, screening: [{ ...expertise, kind: 'choice' }] }))[0]).toMatch(/^screening\.0: .*kind/);
    expect(issues(GroupConfig.safeParse({ ...base, screening: [{ ...expertise, id: 'has space' }] }))[0]).toMatch(/^screening\.0\.id: /);
  });
});
