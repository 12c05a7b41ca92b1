import { describe, expect, it } from 'vitest';
import { GroupConfig } from '../../common/group';
import type { LobbyEntryRow } from '../../lib/storage';
import { hasSeatFor, pickGroup } from './matching';

let arrivals = 0;
const entry = (id: string, quotaValue: string | null = null, arrivalSeq = ++arrivals): LobbyEntryRow => ({
  sessionId: id,
  studyId: 's',
  conditionId: 'c',
  taskId: 't',
  quotaValue,
  joinedAt: 0,
  arrivalSeq,
  deadlineAt: 0,
  outcome: null,
  outcomeAt: null,
  groupId: null,
});
const arrival = GroupConfig.parse({ size: { min: 2, max: 3 }, lobby: { timeout_seconds: 30, on_timeout: 'start_smaller' } });
const quota = GroupConfig.parse({
  size: { min: 2, max: 3 },
  lobby: { timeout_seconds: 30, on_timeout: 'start_smaller' },
  form_by: { quota: { source: 'url_param', key: 'expertise', seats: { expert: 1, novice: 2 } } },
});

describe('pickGroup', () => {
  it('takes the oldest size.max by arrival, and at a timeout at least size.min', () => {
    expect(pickGroup([entry('a'), entry('b')], arrival, true)).toBeNull();
    expect(pickGroup([entry('a'), entry('b'), entry('c'), entry('d')], arrival, true)!.map((e) => e.sessionId)).toEqual(['a', 'b', 'c']);
    expect(pickGroup([entry('a'), entry('b')], arrival, false)!.map((e) => e.sessionId)).toEqual(['a', 'b']);
    expect(pickGroup([entry('a')], arrival, false)).toBeNull();
  });

  it('fills quota seats: three experts wait until novices come', () => {
    const experts = [entry('e1', 'expert'), entry('e2', 'expert'), entry('e3', 'expert')];
    expect(pickGroup(experts, quota, true)).toBeNull();
    expect(pickGroup(experts, quota, false)).toBeNull();
    const mixed = [...experts, entry('n1', 'novice'), entry('n2', 'novice'), entry('n3', 'novice')];
    expect(pickGroup(mixed, quota, true)!.map((e) => e.sessionId)).toEqual(['e1', 'n1', 'n2']);
    expect(hasSeatFor(quota, 'expert')).toBe(true);
    expect(hasSeatFor(quota, 'manager')).toBe(false);
    expect(hasSeatFor(quota, null)).toBe(false);
  });

  it('seats by arrival number, not by the order given or by session id, when everyone joined in the same millisecond', () => {
    // All joinedAt 0: z arrived first, then y, then x.
    const waiting = [entry('x', null, 3), entry('z', null, 1), entry('y', null, 2), entry('w', null, 4)];
    expect(pickGroup(waiting, arrival, true)!.map((e) => e.sessionId)).toEqual(['z', 'y', 'x']);
    const experts = [entry('e-a', 'expert', 12), entry('e-b', 'expert', 11), entry('n-a', 'novice', 14), entry('n-b', 'novice', 13)];
    expect(pickGroup(experts, quota, true)!.map((e) => e.sessionId)).toEqual(['e-b', 'n-b', 'n-a']);
  });
});
