import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CIB_DIMENSIONS, TEAMWORK_DIMENSIONS } from '../../../common/teamworkTask';
import { loadTaskDir, parseTaskText, TaskFileError } from './loadTasks';

const SUITE = new URL('../../../teamwork/tasks/suite', import.meta.url).pathname;
const flood = readFileSync(join(SUITE, 'info-flood-route.yaml'), 'utf8');
const problemsOf = (text: string): string[] => parseTaskText(text, 'tasks/info-flood-route.yaml').problems.map((p) => `${p.file}:${p.line}: ${p.field}: ${p.message}`);
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('task files', () => {
  it('the example suite loads: at least six tasks per CIB dimension and the takeover side study, each citing a source', () => {
    const tasks = loadTaskDir(SUITE);
    expect(tasks.length).toBeGreaterThanOrEqual(6 * CIB_DIMENSIONS.length + 2);
    for (const d of CIB_DIMENSIONS) expect(tasks.filter((t) => t.dimension === d).length, d).toBeGreaterThanOrEqual(6);
    for (const d of TEAMWORK_DIMENSIONS) expect(tasks.filter((t) => t.dimension === d).length, d).toBeGreaterThanOrEqual(2);
    for (const t of tasks) expect(t.source.length, t.id).toBeGreaterThan(40);
  });

  it('every suite task carries a licence and reading_cases that pass and fail, all read as stated (the loader checks them)', () => {
    for (const dir of [SUITE, join(SUITE, '..', 'partner')]) {
      for (const t of loadTaskDir(dir)) {
        expect(t.licence, t.id).toMatch(/\S/);
        expect(t.reading_cases.some((c) => c.passed), t.id).toBe(true);
        expect(t.reading_cases.some((c) => !c.passed), t.id).toBe(true);
      }
    }
  });

  it('refuses an unknown label in a when, naming file, line and field', () => {
    const bad = flood.replace('when: { label: asks_specific }', 'when: { label: asks_specifc }');
    expect(problemsOf(bad)).toEqual([`tasks/info-flood-route.yaml:${lineOf(bad, 'asks_specifc')}: teammates.0.lines.2.when.label: unknown label "asks_specifc" (the label set has: asks_specific, asks_general, decides, other)`]);
  });

  it('refuses a label set without a "seeing the problem" label', () => {
    const bad = flood.replace('  sees_problem: [asks_specific]\n', '');
    // A field's line is where its value starts: the `set:` line under `labels:`.
    expect(problemsOf(bad)).toEqual([`tasks/info-flood-route.yaml:${lineOf(bad, 'labels:') + 1}: labels: the label set has no "seeing the problem" label: list them in labels.sees_problem`]);
    expect(problemsOf(flood.replace('sees_problem: [asks_specific]', 'sees_problem: [noticed]'))[0]).toMatch(/labels\.sees_problem\.0: "noticed" is not in the label set/);
  });

  it('refuses checks that can never pass', () => {
    expect(problemsOf(flood.replace('correct: route 12', 'correct: route 7'))[0]).toMatch(/:\d+: check\.correct: the check can never pass: "route 7" \(correct\[0\]\) is not one of the options/);
    expect(problemsOf(flood.replace('  answer: route 12', '  answer: route 9'))[0]).toMatch(/reference\.answer: the check can never pass: it fails even the reference answer/);
    const regex = flood.replace(/check:\n(?:  .*\n)+/, 'check:\n  type: regex\n  pattern: "route (12"\n');
    expect(problemsOf(regex)[0]).toMatch(/check\.pattern: the check can never pass: invalid regular expression/);
    const deal = readFileSync(join(SUITE, 'conflict-room-split.yaml'), 'utf8');
    expect(parseTaskText(deal.replace('best: split_day', 'best: escalate'), 'conflict-room-split.yaml').problems.map((p) => p.message)).toContain('"escalate" is not the best joint deal (joint value 4 < 10)');
  });

  it('refuses a tool without a result', () => {
    const text = readFileSync(join(SUITE, 'takeover-failing-tests.yaml'), 'utf8');
    const bad = text.replace('    result: "tests/test_time.py: 4 passed, 2 failed (test_hours, test_mixed_units)"\n', '');
    const problems = parseTaskText(bad, 'takeover-failing-tests.yaml').problems;
    expect(problems.map((p) => `${p.line}: ${p.field}: ${p.message}`)).toEqual([`${lineOf(bad, '- name: run_tests')}: tools.1: tool "run_tests" has no result (give "result", the canned reply when no case matches)`]);
  });

  it('reports schema and YAML errors with their lines, for every file of a directory at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-'));
    writeFileSync(join(dir, 'info-flood-route.yaml'), flood.replace('rounds: 4', 'rounds: zero'));
    writeFileSync(join(dir, 'broken.yaml'), 'id: broken\n  dimension: [\n');
    let error: unknown;
    try {
      loadTaskDir(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TaskFileError);
    const messages = (error as TaskFileError).problems.map((p) => `${p.file.split('/').pop()}:${p.line}: ${p.field}`);
    expect(messages).toContain('broken.yaml:3: ');
    expect((error as TaskFileError).message).toMatch(/broken\.yaml:1: YAML syntax: /);
    expect(messages).toContain(`info-flood-route.yaml:${lineOf(flood, 'rounds: 4')}: rounds`);
  });

  it('checks a task\'s reading_cases at load, refusing the file when the check reads one otherwise', () => {
    const good = `${flood.replace(/reading_cases:\n(?:  .*\n)+/, '').trimEnd()}\nreading_cases:\n  - { message: "FINAL: route 12", passed: true }\n  - { message: "Route 9 floods.\\nFINAL: route 12", passed: true }\n  - { message: "FINAL: route 9 or route 12", passed: false }\n`;
    expect(problemsOf(good)).toEqual([]);
    expect(parseTaskText(good, 'tasks/info-flood-route.yaml').task!.reading_cases).toHaveLength(3);
    const bad = good.replace('"FINAL: route 9 or route 12", passed: false', '"FINAL: route 9 or route 12", passed: true');
    expect(problemsOf(bad)).toEqual([
      `tasks/info-flood-route.yaml:${lineOf(bad, 'route 9 or route 12')}: reading_cases.2.passed: the check reads this message as failing (answer "route 9 or route 12", read null), the case says passing`,
    ]);
    expect(problemsOf(good.replace('passed: true }', 'passed: yes }'))[0]).toMatch(/:\d+: reading_cases\.0\.passed: /);
  });
});
