/**
 * A final message read as a run reads it (answerReading.ts): the FINAL: line when there is one, else the whole
 * message; then the task's check. Used by `teamwork check` and by the loader for a task's `reading_cases`, so
 * a task author tests the very reading that scores runs.
 */
import type { TeamworkTaskFile } from '../../../common/teamworkTask';
import { cleanAnswer, finalLineAnswer } from './answerReading';
import { evaluateCheck, type CheckOutcome } from './outcomeCheck';

export interface MessageReading {
  answer: string | null;
  outcome: CheckOutcome;
}

export function readMessage(task: Pick<TeamworkTaskFile, 'check'>, message: string): MessageReading {
  const answer = finalLineAnswer(message) ?? (cleanAnswer(message) || null);
  return { answer, outcome: evaluateCheck(task.check, answer) };
}

/** The one-line JSON `teamwork check` prints. */
export function readingLine(reading: MessageReading): string {
  return JSON.stringify({ answer: reading.answer, passed: reading.outcome.passed, value: reading.outcome.score, pushed: reading.outcome.pushed, read: reading.outcome.read });
}
