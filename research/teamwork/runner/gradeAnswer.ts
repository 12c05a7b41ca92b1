/**
 * Grading an answer for a `judge` check: the referee and the second rater grade it against the task's
 * criterion in parallel; when they disagree (or one reply names neither pass nor fail) the third rater
 * decides if one is configured, else the referee's readable verdict stands (else the second's). All verdicts
 * and raw replies are kept in the run (`check_grades`). No readable verdict at all fails the answer.
 */
import type { JudgeVerdict } from '../../../common/teamworkRun';
import type { TeamworkTask } from '../../../common/teamworkTask';
import { isCompletedReply } from '../../judge/cachedModelClient';
import { refusedParameterText } from '../endpoints/callError';
import { RunAborted, type SeatClient } from './context';
import { JudgeFailed, type JudgeContext } from './judgeMessage';
import { gradePrompt, parseGrade } from './prompts';

export interface Graded {
  passed: boolean;
  verdicts: JudgeVerdict[];
  agreed: boolean;
  tokens: { input: number; output: number };
}

async function grade(seat: SeatClient, rater: JudgeVerdict['rater'], task: TeamworkTask, criterion: string, answer: string, ctx: JudgeContext) {
  const outcome = await seat.client.complete(
    {
      purpose: `teamwork:grade:${rater}`, model: seat.model, messages: gradePrompt(task, criterion, answer), temperature: 0, maxTokens: 20, seed: 0, sampleIndex: 0,
      ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
    },
    ctx.signal,
  );
  if (ctx.signal?.aborted) throw new RunAborted();
  const r = outcome.result;
  if (!isCompletedReply(r)) throw new JudgeFailed(refusedParameterText(`${rater} grader`, seat.model, r) ?? `${rater} grader (${seat.model}): ${r.error?.message ?? r.finishReason}`);
  const verdict = parseGrade(r.text);
  return { verdict: { rater, model: r.model, label: verdict === null ? null : verdict ? 'pass' : 'fail', raw: r.text, cached: outcome.cached } as JudgeVerdict, value: verdict, input: r.usage?.promptTokens ?? 0, output: r.usage?.completionTokens ?? 0 };
}

export async function gradeAnswer(task: TeamworkTask, answer: string, ctx: JudgeContext): Promise<Graded> {
  if (task.check.type !== 'judge') throw new Error(`task ${task.id} has no judge check`);
  const criterion = task.check.criterion;
  const [referee, second] = await Promise.all([grade(ctx.referee, 'referee', task, criterion, answer, ctx), grade(ctx.second, 'second', task, criterion, answer, ctx)]);
  const agreed = referee.value !== null && referee.value === second.value;
  const third = !agreed && ctx.third ? await grade(ctx.third, 'third', task, criterion, answer, ctx) : undefined;
  const passed = agreed ? referee.value! : (third?.value ?? referee.value ?? second.value ?? false);
  const all = [referee, second, ...(third ? [third] : [])];
  return { passed, agreed, verdicts: all.map((x) => x.verdict), tokens: { input: all.reduce((n, x) => n + x.input, 0), output: all.reduce((n, x) => n + x.output, 0) } };
}
