/**
 * Load-time rules of a task file that the zod schema cannot state: every label a `when` names is in the
 * label set, the "seeing the problem" labels exist, the check can pass (and the reference answers, when
 * given, pass and fail it as they must), every tool has a result, rounds named exist. Each problem names
 * the field path, so the loader can put the file's line in front of it.
 */
import type { LineCondition, TeamworkTaskFile } from '../../../common/teamworkTask';
import { evaluateCheck, normaliseAnswer } from '../checks/outcomeCheck';
import { readMessage } from '../checks/readMessage';

export interface RuleProblem {
  path: Array<string | number>;
  message: string;
}

function labelProblems(task: TeamworkTaskFile, when: LineCondition | undefined, at: Array<string | number>): RuleProblem[] {
  if (!when) return [];
  const known = new Set(Object.keys(task.labels.set));
  const out: RuleProblem[] = [];
  for (const key of ['label', 'not_label', 'ever_label'] as const) {
    (when[key] ?? []).forEach((label) => {
      if (!known.has(label)) out.push({ path: [...at, 'when', key], message: `unknown label "${label}" (the label set has: ${[...known].join(', ')})` });
    });
  }
  const round = when.round;
  if (typeof round === 'number' && round > task.rounds) out.push({ path: [...at, 'when', 'round'], message: `round ${round} is after the last round (${task.rounds}): the line could never be said` });
  if (typeof round === 'object') {
    if (round.min !== undefined && round.max !== undefined && round.min > round.max) out.push({ path: [...at, 'when', 'round'], message: `min ${round.min} is above max ${round.max}` });
    if (round.min !== undefined && round.min > task.rounds) out.push({ path: [...at, 'when', 'round', 'min'], message: `round ${round.min} is after the last round (${task.rounds})` });
  }
  return out;
}

function checkProblems(task: TeamworkTaskFile): RuleProblem[] {
  const check = task.check;
  const never = (field: string, why: string): RuleProblem => ({ path: ['check', field], message: `the check can never pass: ${why}` });
  const out: RuleProblem[] = [];
  switch (check.type) {
    case 'exact':
      if (check.normalise && check.expected.every((e) => normaliseAnswer(e) === '')) out.push(never('expected', 'every expected answer is empty once normalised'));
      break;
    case 'regex':
      try {
        new RegExp(check.pattern, check.flags);
      } catch (error) {
        out.push(never('pattern', `invalid regular expression (${(error as Error).message})`));
      }
      break;
    case 'json_field':
      if (check.path.split('.').some((k) => k === '')) out.push(never('path', `"${check.path}" has an empty segment`));
      break;
    case 'choice': {
      const options = new Set(check.options.map(normaliseAnswer));
      if (options.size !== check.options.length) out.push({ path: ['check', 'options'], message: 'options repeat (after normalising)' });
      check.correct.forEach((c, i) => {
        if (!options.has(normaliseAnswer(c))) out.push(never('correct', `"${c}" (correct[${i}]) is not one of the options`));
      });
      (check.pushed ?? []).forEach((p) => {
        if (!options.has(normaliseAnswer(String(p)))) out.push({ path: ['check', 'pushed'], message: `"${String(p)}" is not one of the options` });
        else if (check.correct.some((c) => normaliseAnswer(c) === normaliseAnswer(String(p)))) out.push({ path: ['check', 'pushed'], message: `"${String(p)}" is also correct: giving in could not be told from passing` });
      });
      break;
    }
    case 'deal': {
      const ids = check.deals.map((d) => d.id);
      if (new Set(ids).size !== ids.length) out.push({ path: ['check', 'deals'], message: 'deal ids repeat' });
      const best = check.deals.find((d) => d.id === check.best);
      if (!best) out.push(never('best', `"${check.best}" is not one of the deals (${ids.join(', ')})`));
      else {
        const joint = (d: { model_value: number; teammate_value: number }) => d.model_value + d.teammate_value;
        const top = Math.max(...check.deals.map(joint));
        if (joint(best) < top) out.push({ path: ['check', 'best'], message: `"${check.best}" is not the best joint deal (joint value ${joint(best)} < ${top})` });
        if (check.deals.filter((d) => joint(d) === top).length > 1) out.push({ path: ['check', 'best'], message: 'several deals share the best joint value: the best deal must be unique' });
      }
      for (const key of ['firm', 'teammate_offers'] as const) {
        check[key].forEach((id, i) => {
          if (!ids.includes(id)) out.push({ path: ['check', key, i], message: `"${id}" is not one of the deals` });
          if (id === check.best) out.push({ path: ['check', key, i], message: `"${id}" is the best joint deal; it cannot also be ${key === 'firm' ? 'holding firm' : "a teammate's own offer"}` });
        });
      }
      break;
    }
    case 'number':
      break;
    case 'judge':
      if (task.reference && check.cues.length === 0) out.push({ path: ['check', 'cues'], message: 'a judge check with reference answers needs cues: the offline judge passes an answer on them' });
      break;
  }
  if (out.length === 0 && task.reference) {
    if (!evaluateCheck(check, task.reference.answer).passed) out.push({ path: ['reference', 'answer'], message: 'the check can never pass: it fails even the reference answer' });
    if (evaluateCheck(check, task.reference.gives_in).passed) out.push({ path: ['reference', 'gives_in'], message: 'the check passes the answer that gives in: it cannot fail for giving in' });
  }
  return out;
}

function toolProblems(task: TeamworkTaskFile): RuleProblem[] {
  const out: RuleProblem[] = [];
  const seen = new Set<string>();
  task.tools.forEach((tool, i) => {
    if (seen.has(tool.name)) out.push({ path: ['tools', i, 'name'], message: `tool "${tool.name}" is defined twice` });
    seen.add(tool.name);
    if (!tool.submit && tool.result === undefined) out.push({ path: ['tools', i], message: `tool "${tool.name}" has no result (give "result", the canned reply when no case matches)` });
    if (!tool.submit && tool.answer_arg !== undefined) out.push({ path: ['tools', i, 'answer_arg'], message: 'only a submit tool has an answer argument' });
  });
  if (task.tools.filter((t) => t.submit).length > 1) out.push({ path: ['tools'], message: 'at most one tool may submit' });
  return out;
}

function seatProblems(task: TeamworkTaskFile): RuleProblem[] {
  const out: RuleProblem[] = [];
  const names = new Set<string>();
  const seats = [...task.teammates.map((t, i) => ({ name: t.name, path: ['teammates', i, 'name'] })), ...task.environment.map((e, i) => ({ name: e.name, path: ['environment', i, 'name'] }))];
  for (const seat of seats) {
    if (names.has(seat.name.toLowerCase())) out.push({ path: seat.path, message: `seat name "${seat.name}" is used twice` });
    if (['model', 'you', 'tool', 'system'].includes(seat.name.toLowerCase())) out.push({ path: seat.path, message: `"${seat.name}" is reserved` });
    names.add(seat.name.toLowerCase());
  }
  for (const arm of ['calm', 'test'] as const) {
    if (!task.teammates.some((t) => t.arms.includes(arm))) out.push({ path: ['teammates'], message: `no teammate takes part in the ${arm} arm` });
  }
  task.environment.forEach((seat, i) =>
    seat.posts.forEach((post, j) => {
      if (post.round > task.rounds) out.push({ path: ['environment', i, 'posts', j, 'round'], message: `round ${post.round} is after the last round (${task.rounds})` });
    }),
  );
  return out;
}

/** Each reading case the check reads otherwise than the case says. */
function readingCaseProblems(task: TeamworkTaskFile): RuleProblem[] {
  return task.reading_cases.flatMap((c, i) => {
    const reading = readMessage(task, c.message);
    if (reading.outcome.passed === c.passed) return [];
    return [{ path: ['reading_cases', i, 'passed'], message: `the check reads this message as ${reading.outcome.passed ? 'passing' : 'failing'} (answer ${JSON.stringify(reading.answer)}, read ${JSON.stringify(reading.outcome.read)}), the case says ${c.passed ? 'passing' : 'failing'}` }];
  });
}

/** Every rule problem of a schema-valid task file (empty: the task may run). */
export function taskRuleProblems(task: TeamworkTaskFile): RuleProblem[] {
  const labels = new Set(Object.keys(task.labels.set));
  const out: RuleProblem[] = [];
  if (!task.labels.sees_problem?.length) out.push({ path: ['labels'], message: 'the label set has no "seeing the problem" label: list them in labels.sees_problem' });
  (task.labels.sees_problem ?? []).forEach((label, i) => {
    if (!labels.has(label)) out.push({ path: ['labels', 'sees_problem', i], message: `"${label}" is not in the label set: no label would count as seeing the problem` });
  });
  if (!labels.has(task.labels.default)) out.push({ path: ['labels', 'default'], message: `"${task.labels.default}" is not in the label set` });
  task.teammates.forEach((mate, i) => {
    if (mate.kind === 'scripted') mate.lines.forEach((line, j) => out.push(...labelProblems(task, line.when, ['teammates', i, 'lines', j])));
  });
  out.push(...checkProblems(task), ...toolProblems(task), ...seatProblems(task));
  if (!out.some((p) => p.path[0] === 'check')) out.push(...readingCaseProblems(task));
  return out;
}
