/**
 * Labels one message of the subject from the task's label set: the referee and the second rater label
 * it independently (in parallel); when they disagree, the third rater decides if one is configured,
 * else the referee. Both (all) verdicts and raw replies are kept. A judge call that fails after the
 * provider's retries fails the run (status error): branching cannot go on without a label.
 */
import type { MessageLabels, JudgeVerdict } from '../../../common/teamworkRun';
import type { TeamworkTask } from '../../../common/teamworkTask';
import { isCompletedReply } from '../../judge/cachedModelClient';
import { refusedParameterText } from '../endpoints/callError';
import type { RunContext, SeatClient } from './context';
import { RunAborted } from './context';
import { judgePrompt, parseLabel, type TranscriptLine } from './prompts';

export const JUDGE_MAX_TOKENS = 20;

export interface Judged {
  labels: MessageLabels;
  tokens: { input: number; output: number };
}

export class JudgeFailed extends Error {}

/** What labelling needs: the raters and the call settings (a model run's context, or a person's seat). */
export type JudgeContext = Pick<RunContext, 'referee' | 'second' | 'third' | 'timeoutMs' | 'signal' | 'sessionId'>;

async function rate(seat: SeatClient, rater: JudgeVerdict['rater'], task: TeamworkTask, transcript: readonly TranscriptLine[], message: string, ctx: JudgeContext) {
  const outcome = await seat.client.complete(
    {
      purpose: `teamwork:judge:${rater}`,
      model: seat.model,
      messages: judgePrompt(task, transcript, message),
      temperature: 0,
      maxTokens: JUDGE_MAX_TOKENS,
      seed: 0,
      sampleIndex: 0,
      ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
      ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
    },
    ctx.signal,
  );
  if (ctx.signal?.aborted) throw new RunAborted();
  const r = outcome.result;
  if (!isCompletedReply(r)) throw new JudgeFailed(refusedParameterText(`${rater} judge`, seat.model, r) ?? `${rater} judge (${seat.model}): ${r.error?.message ?? r.finishReason}`);
  const verdict: JudgeVerdict = { rater, model: r.model, label: parseLabel(r.text, Object.keys(task.labels.set)), raw: r.text, cached: outcome.cached };
  return { verdict, input: r.usage?.promptTokens ?? 0, output: r.usage?.completionTokens ?? 0 };
}

export async function judgeMessage(task: TeamworkTask, transcript: readonly TranscriptLine[], message: string, ctx: JudgeContext): Promise<Judged> {
  const [referee, second] = await Promise.all([rate(ctx.referee, 'referee', task, transcript, message, ctx), rate(ctx.second, 'second', task, transcript, message, ctx)]);
  const agreed = referee.verdict.label === second.verdict.label;
  const third = !agreed && ctx.third ? await rate(ctx.third, 'third', task, transcript, message, ctx) : undefined;
  const final = (agreed ? referee.verdict.label : (third?.verdict.label ?? referee.verdict.label ?? second.verdict.label)) ?? task.labels.default;
  const all = [referee, second, ...(third ? [third] : [])];
  return {
    labels: { referee: referee.verdict, second: second.verdict, ...(third ? { third: third.verdict } : {}), final, agreed },
    tokens: { input: all.reduce((n, x) => n + x.input, 0), output: all.reduce((n, x) => n + x.output, 0) },
  };
}
