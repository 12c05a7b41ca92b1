import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { contentText, reply, startFakeOpenAI, type FakeOpenAI } from '../../../tests/support/fakeOpenAI';
import { fakeContext } from '../../../tests/support/teamworkTestBed';
import { parseTaskText } from '../tasks/loadTasks';
import { GRADE_PROMPT_START, parseGrade } from './prompts';
import { runOne } from './runOne';

const flood = readFileSync(new URL('../../../teamwork/tasks/suite/info-flood-route.yaml', import.meta.url), 'utf8');
const judged = flood
  .replace(/check:\n(?:  .*\n)+/, 'check:\n  type: judge\n  criterion: The answer picks the route that avoids the flooded road and says why.\n  cues: [route 12]\n')
  .replace(/reference:\n(?:  .*\n)+/, '')
  .replace(/reading_cases:\n(?:  .*\n)+/, '');
const task = parseTaskText(judged, 'info-flood-route.yaml').task!;

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('judge check: the raters grade the answer', () => {
  it('referee and second rater disagree, the third decides; all verdicts are kept', async () => {
    expect(task.check.type).toBe('judge');
    const grades: Record<string, string> = { 'referee-model': 'pass', 'second-model': 'FAIL.', 'third-model': 'Pass' };
    fake = await startFakeOpenAI({
      responder: (r) => {
        const system = contentText(r.body.messages[0]?.content);
        if (system.startsWith(GRADE_PROMPT_START)) return reply(grades[String(r.body.model)]!);
        if (system.startsWith('You label one message')) return reply('decides');
        return reply('Route 12 avoids the flood warning on route 9.\nFINAL: route 12');
      },
    });
    const { ctx, clients, cache } = await fakeContext(fake, [task]);
    const run = await runOne({ task, arm: 'test', seed: 1 }, { ...ctx, third: clients.seat('third-model') });
    await cache.close();
    expect(run).toMatchObject({ status: 'ok', passed: true, answer: 'route 12', check_agreed: false });
    expect((run.check_grades as Array<{ rater: string; label: string | null }>).map((v) => [v.rater, v.label])).toEqual([['referee', 'pass'], ['second', 'fail'], ['third', 'pass']]);
    const gradeRequests = fake.requests.filter((r) => contentText(r.body.messages[0]?.content).startsWith(GRADE_PROMPT_START));
    expect(gradeRequests).toHaveLength(3);
    expect(contentText(gradeRequests[0]!.body.messages[1].content)).toContain('Criterion: The answer picks the route');
    expect(run.judge_tokens!.input).toBeGreaterThan(0);
  });

  it('a reply naming neither pass nor fail is kept raw, and without a third rater the readable verdict stands', async () => {
    fake = await startFakeOpenAI({
      responder: (r) => {
        const system = contentText(r.body.messages[0]?.content);
        if (system.startsWith(GRADE_PROMPT_START)) return reply(r.body.model === 'referee-model' ? 'It depends.' : 'fail');
        if (system.startsWith('You label one message')) return reply('decides');
        return reply('FINAL: route 12');
      },
    });
    const { ctx, cache } = await fakeContext(fake, [task]);
    const run = await runOne({ task, arm: 'alone', seed: 1 }, ctx);
    await cache.close();
    expect(run.passed).toBe(false);
    expect(run.check_grades).toMatchObject([{ rater: 'referee', label: null, raw: 'It depends.' }, { rater: 'second', label: 'fail' }]);
    expect([parseGrade('pass'), parseGrade('Fails.'), parseGrade('pass or fail?'), parseGrade('unsure')]).toEqual([true, false, null, null]);
  });
});
