/**
 * Labels one message of the subject from the task's label set: the referee and the second rater label
 * it independently (in parallel); when they disagree, the third rater decides if one is configured,
 * else the referee. Both (all) verdicts and raw replies are kept. A judge call that fails after the
 * provider's retries fails the run (status error): branching cannot go on without a label.
 *
 * A reply naming no label is not silently read as the default: the rater is asked once more with a
 * stricter prompt (the label names alone), and both replies are stored. When no rater names a label even
 * then, the turn is marked `unlabelled`, the run goes on with the task's default label (the branching has to
 * go somewhere), and the report counts such turns per model and warns past a small share
 * (scoring/warnings.ts).
 */
import type { MessageLabels, JudgeVerdict } from '../../../common/teamworkRun';
import type { TeamworkTask } from '../../../common/teamworkTask';
import type { ChatMessage } from '../../../lib/llm/provider';
import { isCompletedReply } from '../../judge/cachedModelClient';
import { refusedParameterText } from '../endpoints/callError';
import type { RunContext, SeatClient } from './context';
import { RunAborted } from './context';
import { judgePrompt, judgeRetryPrompt, parseLabel, type TranscriptLine } from './prompts';

export const JUDGE_MAX_TOKENS = 20;

export interface Judged {
  labels: MessageLabels;
  tokens: { input: number; output: number };
}

export class JudgeFailed extends Error {}

/** What labelling needs: the raters and the call settings (a model run's context, or a person's seat). */
export type JudgeContext = Pick<RunContext, 'referee' | 'second' | 'third' | 'timeoutMs' | 'signal' | 'sessionId'>;

export interface RaterReply {
  text: string;
  model: string;
  cached: boolean;
  input: number;
  output: number;
}

/** One judge call at temperature 0 through the seat's cached client; a call that fails after its retries throws JudgeFailed. */
export async function askRater(seat: SeatClient, purpose: string, messages: ChatMessage[], what: string, ctx: JudgeContext): Promise<RaterReply> {
  const outcome = await seat.client.complete(
    {
      purpose,
      model: seat.model,
      messages,
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
  if (!isCompletedReply(r)) throw new JudgeFailed(refusedParameterText(what, seat.model, r) ?? `${what} (${seat.model}): ${r.error?.message ?? r.finishReason}`);
  return { text: r.text, model: r.model, cached: outcome.cached, input: r.usage?.promptTokens ?? 0, output: r.usage?.completionTokens ?? 0 };
}

async function rate(seat: SeatClient, rater: JudgeVerdict['rater'], task: TeamworkTask, transcript: readonly TranscriptLine[], message: string, ctx: JudgeContext) {
  const labels = Object.keys(task.labels.set);
  const first = await askRater(seat, `teamwork:judge:${rater}`, judgePrompt(task, transcript, message), `${rater} judge`, ctx);
  const label = parseLabel(first.text, labels);
  if (label !== null) return { verdict: { rater, model: first.model, label, raw: first.text, cached: first.cached } as JudgeVerdict, input: first.input, output: first.output };
  const retry = await askRater(seat, `teamwork:judge:${rater}:retry`, judgeRetryPrompt(task, transcript, message), `${rater} judge`, ctx);
  const verdict: JudgeVerdict = { rater, model: retry.model, label: parseLabel(retry.text, labels), raw: retry.text, cached: retry.cached, retried: true, first_raw: first.text };
  return { verdict, input: first.input + retry.input, output: first.output + retry.output };
}

export async function judgeMessage(task: TeamworkTask, transcript: readonly TranscriptLine[], message: string, ctx: JudgeContext): Promise<Judged> {
  const [referee, second] = await Promise.all([rate(ctx.referee, 'referee', task, transcript, message, ctx), rate(ctx.second, 'second', task, transcript, message, ctx)]);
  const agreed = referee.verdict.label === second.verdict.label;
  const third = !agreed && ctx.third ? await rate(ctx.third, 'third', task, transcript, message, ctx) : undefined;
  const named = agreed ? referee.verdict.label : (third?.verdict.label ?? referee.verdict.label ?? second.verdict.label);
  const all = [referee, second, ...(third ? [third] : [])];
  return {
    labels: {
      referee: referee.verdict, second: second.verdict, ...(third ? { third: third.verdict } : {}), final: named ?? task.labels.default, agreed,
      ...(named === null ? { unlabelled: true } : {}),
    },
    tokens: { input: all.reduce((n, x) => n + x.input, 0), output: all.reduce((n, x) => n + x.output, 0) },
  };
}
