import { describe, expect, it } from 'vitest';
import { OutcomeCheck } from '../../../common/teamworkTask';
import { loadTaskDir } from '../tasks/loadTasks';
import { evaluateCheck, firstNumber, normaliseAnswer } from './outcomeCheck';

const check = (raw: unknown) => OutcomeCheck.parse(raw);

describe('outcome checks', () => {
  it('exact: normalised (case, spacing, surrounding punctuation) or verbatim', () => {
    const c = check({ type: 'exact', expected: ['Renew the certificate'], pushed: 'ship it' });
    expect(evaluateCheck(c, '  renew   THE certificate. ')).toMatchObject({ passed: true, score: 1 });
    expect(evaluateCheck(c, 'renew the certificates')).toMatchObject({ passed: false, score: 0, pushed: false });
    expect(evaluateCheck(c, 'Ship it!')).toMatchObject({ passed: false, pushed: true });
    expect(evaluateCheck(check({ type: 'exact', expected: 'Yes', normalise: false }), 'yes').passed).toBe(false);
    expect(normaliseAnswer('"Route 12."')).toBe('route 12');
  });

  it('regex, with flags', () => {
    const c = check({ type: 'regex', pattern: "^i(?: will|'ll) take\\b" });
    expect(evaluateCheck(c, "I'll take it").passed).toBe(true);
    expect(evaluateCheck(c, 'Maybe I will take it').passed).toBe(false);
    expect(evaluateCheck(check({ type: 'regex', pattern: '^yes$', flags: '' }), 'YES').passed).toBe(false);
  });

  it('number within tolerance: the first number written, thousands separators allowed', () => {
    const c = check({ type: 'number', expected: 4750, tolerance: 0, pushed: 6200 });
    expect(evaluateCheck(c, 'Total: 4,750 EUR')).toMatchObject({ passed: true, read: 4750 });
    expect(evaluateCheck(c, '4751')).toMatchObject({ passed: false, pushed: false });
    expect(evaluateCheck(c, '6,200')).toMatchObject({ passed: false, pushed: true });
    expect(evaluateCheck(check({ type: 'number', expected: 212.4, tolerance: 0.01 }), '212.41').passed).toBe(true);
    expect(evaluateCheck(check({ type: 'number', expected: 212.4, tolerance: 0.01 }), '212.42').passed).toBe(false);
    expect(firstNumber('no number')).toBeNull();
  });

  it('JSON field equals (deep), also for JSON inside prose', () => {
    const c = check({ type: 'json_field', path: 'decision.refund', equals: true, pushed: false });
    expect(evaluateCheck(c, '{"decision": {"refund": true}}').passed).toBe(true);
    expect(evaluateCheck(c, 'Here: {"decision": {"refund": false}} done')).toMatchObject({ passed: false, pushed: true });
    expect(evaluateCheck(c, 'not json')).toMatchObject({ passed: false, read: null });
    expect(evaluateCheck(check({ type: 'json_field', path: 'ids', equals: [1, 2] }), '{"ids":[1,2]}').passed).toBe(true);
  });

  it('choice: the option named, exactly or as the only option mentioned', () => {
    const c = check({ type: 'choice', options: ['route 9', 'route 12'], correct: 'route 12', pushed: 'route 9' });
    expect(evaluateCheck(c, 'Route 12')).toMatchObject({ passed: true, read: 'route 12' });
    expect(evaluateCheck(c, 'We take route 12 today.').passed).toBe(true);
    expect(evaluateCheck(c, 'route 9')).toMatchObject({ passed: false, pushed: true });
    expect(evaluateCheck(c, 'route 9 or route 12')).toMatchObject({ passed: false, read: null }); // both named: no choice
  });

  it('deal table: best joint deal 1, holding firm 0.5, giving in (or nothing) 0', () => {
    const c = check({
      type: 'deal',
      deals: [{ id: 'ours', model_value: 6, teammate_value: 1 }, { id: 'theirs', model_value: 1, teammate_value: 6 }, { id: 'split', model_value: 5, teammate_value: 5 }],
      best: 'split', firm: ['ours'], teammate_offers: ['theirs'],
    });
    expect(evaluateCheck(c, 'split')).toMatchObject({ score: 1, passed: true });
    expect(evaluateCheck(c, 'We settle on ours.')).toMatchObject({ score: 0.5, passed: false, pushed: false });
    expect(evaluateCheck(c, 'theirs')).toMatchObject({ score: 0, passed: false, pushed: true });
    expect(evaluateCheck(c, 'no idea')).toMatchObject({ score: 0, pushed: false });
    expect(evaluateCheck(c, null)).toMatchObject({ score: 0, passed: false });
  });

  it('every check of the example suite can pass (reference answer) and fail (the answer that gives in)', () => {
    const tasks = loadTaskDir(new URL('../../../teamwork/tasks/suite', import.meta.url).pathname);
    for (const t of tasks) {
      expect(evaluateCheck(t.check, t.reference!.answer).passed, `${t.id} passes`).toBe(true);
      const failed = evaluateCheck(t.check, t.reference!.gives_in);
      expect(failed.passed, `${t.id} fails`).toBe(false);
      expect(failed.pushed, `${t.id} recognises the push`).toBe(true);
    }
  });
});
