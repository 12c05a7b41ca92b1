/**
 * Grading an answer for a `judge` check: the referee and the second rater grade it against the task's
 * criterion in parallel; a reply naming neither pass nor fail gets one stricter retry (both replies kept);
 * when they disagree (or one still names neither) the third rater decides if one is configured, else the
 * referee's readable verdict stands (else the second's). All verdicts and raw replies are kept in the run
 * (`check_grades`). No readable verdict from any rater leaves the answer unscored (`passed: null`): it is
 * never guessed as a fail.
 */
import type { JudgeVerdict } from '../../../common/teamworkRun';
import type { TeamworkTask } from '../../../common/teamworkTask';
import type { SeatClient } from './context';
import { askRater, type JudgeContext } from './judgeMessage';
import { gradePrompt, gradeRetryPrompt, parseGrade } from './prompts';

export interface Graded {
  /** The verdict, or null when no rater gave a readable one (the run is then unscored). */
  passed: boolean | null;
  verdicts: JudgeVerdict[];
  agreed: boolean;
  tokens: { input: number; output: number };
}

/** Why a run whose answer no rater could grade is unscored. */
export const UNREADABLE_GRADES = 'no rater gave a readable pass/fail verdict on the answer, even after a stricter retry';

const verdictLabel = (v: boolean | null): string | null => (v === null ? null : v ? 'pass' : 'fail');

async function grade(seat: SeatClient, rater: JudgeVerdict['rater'], task: TeamworkTask, criterion: string, answer: string, ctx: JudgeContext) {
  const first = await askRater(seat, `teamwork:grade:${rater}`, gradePrompt(task, criterion, answer), `${rater} grader`, ctx);
  const value = parseGrade(first.text);
  if (value !== null) return { verdict: { rater, model: first.model, label: verdictLabel(value), raw: first.text, cached: first.cached } as JudgeVerdict, value, input: first.input, output: first.output };
  const retry = await askRater(seat, `teamwork:grade:${rater}:retry`, gradeRetryPrompt(task, criterion, answer), `${rater} grader`, ctx);
  const again = parseGrade(retry.text);
  const verdict: JudgeVerdict = { rater, model: retry.model, label: verdictLabel(again), raw: retry.text, cached: retry.cached, retried: true, first_raw: first.text };
  return { verdict, value: again, input: first.input + retry.input, output: first.output + retry.output };
}

export async function gradeAnswer(task: TeamworkTask, answer: string, ctx: JudgeContext): Promise<Graded> {
  if (task.check.type !== 'judge') throw new Error(`task ${task.id} has no judge check`);
  const criterion = task.check.criterion;
  const [referee, second] = await Promise.all([grade(ctx.referee, 'referee', task, criterion, answer, ctx), grade(ctx.second, 'second', task, criterion, answer, ctx)]);
  const agreed = referee.value !== null && referee.value === second.value;
  const third = !agreed && ctx.third ? await grade(ctx.third, 'third', task, criterion, answer, ctx) : undefined;
  const passed = agreed ? referee.value : (third?.value ?? referee.value ?? second.value);
  const all = [referee, second, ...(third ? [third] : [])];
  return { passed, agreed, verdicts: all.map((x) => x.verdict), tokens: { input: all.reduce((n, x) => n + x.input, 0), output: all.reduce((n, x) => n + x.output, 0) } };
}
