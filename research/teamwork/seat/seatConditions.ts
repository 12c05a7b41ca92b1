/**
 * Load-time checks of a study's teamwork-seat conditions (called by lib/studyFiles/studyConfig.ts): the task
 * file exists, is a valid teamwork task that a person can play, and the answer field is a field of every
 * study task. Problems name the study file, line and field, and the task file's own problems are listed
 * after them. A valid condition's `teamwork.task` is replaced by the resolved absolute path, which is what
 * the teammate provider and the `from-study` export read.
 */
import type { Study } from '../../../common/study';
import { loadSeatTask, seatTaskPath } from './seatTask';

interface Problem {
  file: string;
  line: number | null;
  field: string;
  message: string;
}

export function teamworkSeatProblems(
  study: Study,
  studiesDir: string,
  file: string,
  lineOf: (path: readonly PropertyKey[]) => number | null,
  rel: (file: string) => string,
): Problem[] {
  const problems: Problem[] = [];
  study.conditions.forEach((condition, c) => {
    const seat = condition.teamwork;
    if (!seat) return;
    const at = (key: string) => ({ file, line: lineOf(['conditions', c, 'teamwork', key]), field: `conditions.${c}.teamwork.${key}` });
    const abs = seatTaskPath(studiesDir, seat.task);
    const loaded = loadSeatTask(abs, rel(abs));
    if (!loaded.task) {
      const own = loaded.problems.length === 1 && loaded.problems[0]!.field === '' ? `: ${loaded.problems[0]!.message}` : ` (see ${rel(abs)})`;
      problems.push({ ...at('task'), message: `teamwork task "${seat.task}" is not usable${own}` });
      if (own.startsWith(' (see')) problems.push(...loaded.problems);
      return;
    }
    if (seat.answer_field !== undefined)
      study.tasks.forEach((t) => {
        if (!t.fields.some((f) => f.id === seat.answer_field))
          problems.push({ ...at('answer_field'), message: `study task "${t.id}" has no field "${seat.answer_field}" (fields: ${t.fields.map((f) => f.id).join(', ')})` });
      });
    seat.task = abs;
  });
  return problems;
}
