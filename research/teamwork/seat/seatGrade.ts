/**
 * The `judge` check of a person's answer in the seat. The condition's judges (the `teamwork:` block's referee,
 * second rater and third rater, which reach the seat through the teamwork-seat plug-in's condition and, for
 * `from-study`, through the study file) grade it exactly as they grade a model's answer (runner/gradeAnswer.ts).
 * The offline judge grades by cue phrases written for the reference models' answers; a person's free text is not
 * guessed from them: with an offline judge among the raters the outcome is `unscored`, counted and never scored.
 */
import type { JudgeVerdict } from '../../../common/teamworkRun';
import type { TeamworkSeat } from '../../../common/study';
import type { TeamworkTask } from '../../../common/teamworkTask';
import { gradeAnswer, UNREADABLE_GRADES } from '../runner/gradeAnswer';
import type { JudgeContext } from '../runner/judgeMessage';

export const OFFLINE_SEAT_JUDGES =
  "the seat's judges include an offline model, which grades by cue phrases: a person's answer to a judge check is left unscored rather than guessed (name model judges as the condition's teamwork referee and second_rater)";

export interface SeatGrade {
  /** For runOutcome: the verdict, or why there is none. */
  graded: boolean | { unscored: string };
  verdicts?: JudgeVerdict[];
  agreed?: boolean;
  tokens: { input: number; output: number };
}

const isOffline = (model: string | undefined): boolean => model !== undefined && model.startsWith('offline-');

/** Grades `answer` with the seat's judges, or says why it stays unscored. Throws JudgeFailed when a judge cannot be reached. */
export async function gradeSeatAnswer(task: TeamworkTask, seat: TeamworkSeat, answer: string, ctx: JudgeContext): Promise<SeatGrade> {
  if ([seat.referee, seat.second_rater, seat.third_rater].some(isOffline)) return { graded: { unscored: OFFLINE_SEAT_JUDGES }, tokens: { input: 0, output: 0 } };
  const grading = await gradeAnswer(task, answer, ctx);
  return { graded: grading.passed ?? { unscored: UNREADABLE_GRADES }, verdicts: grading.verdicts, agreed: grading.agreed, tokens: grading.tokens };
}
