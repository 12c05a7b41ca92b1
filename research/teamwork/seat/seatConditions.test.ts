/**
 * A study's teamwork-seat conditions are checked when the server loads the studies: a bad task path, a
 * task that is not a valid teamwork task, a task a person cannot play (tools), an answer field the form
 * lacks, and a provider/teamwork mismatch are each refused naming the study file, line and field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from '../../../lib/studyFiles/studyConfig';
import { teamworkSeatProblems } from './seatConditions';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const STUDY = fs.readFileSync(path.join(ROOT, 'studies/teamwork-seat.yaml'), 'utf8');
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The example seat study (edited) alone in a studies folder; returns the problems loading it reports, [] when it loads. */
function problemsWith(edit: (text: string) => string, extra: Record<string, string> = {}): { problems: ConfigProblem[]; file: string; text: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-seat-config-'));
  temps.push(dir);
  const studiesDir = path.join(dir, 'studies');
  fs.mkdirSync(studiesDir);
  const text = edit(STUDY);
  const file = path.join(studiesDir, 'seat.yaml');
  fs.writeFileSync(file, text);
  for (const [name, content] of Object.entries(extra)) {
    fs.mkdirSync(path.dirname(path.join(studiesDir, name)), { recursive: true });
    fs.writeFileSync(path.join(studiesDir, name), content);
  }
  try {
    loadConfig({ studiesDir, surveysDir: path.join(ROOT, 'surveys') }, [teamworkSeatProblems]);
    return { problems: [], file, text };
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { problems: (error as ConfigError).problems, file, text };
  }
}

const lineOf = (text: string, needle: string, nth = 0): number => text.split('\n').map((l, i) => (l.includes(needle) ? i + 1 : 0)).filter(Boolean)[nth]!;

describe('teamwork-seat conditions at load', () => {
  it('loads the example study, resolving the shipped task path and filling the condition defaults', () => {
    expect(problemsWith((t) => t).problems).toEqual([]);
    const config = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') }, [teamworkSeatProblems]);
    const test = config.studies.get('teamwork-seat')!.conditions.find((c) => c.id === 'test')!;
    expect(test.teamwork!.task).toBe(path.join(ROOT, 'teamwork/tasks/suite/info-flood-route.yaml'));
    expect(test).toMatchObject({ provider: 'teamwork', model: 'teammate:info-flood-route/test', assistant_label: 'your team', teamwork: { arm: 'test', referee: 'offline-judge', answer_field: 'route' } });
  });

  it('refuses a task path that names no file, at the field of the condition', () => {
    const { problems, text } = problemsWith((t) => t.replace('suite/info-flood-route.yaml, arm: calm', 'suite/no-such-task.yaml, arm: calm'));
    expect(problems).toEqual([
      { file: expect.stringMatching(/seat\.yaml$/), line: lineOf(text, 'no-such-task'), field: 'conditions.1.teamwork.task', message: 'teamwork task "teamwork/tasks/suite/no-such-task.yaml" is not usable: teamwork task file not found' },
    ]);
  });

  it('refuses a file that is not a valid task, and lists the task file’s own problems', () => {
    const broken = fs.readFileSync(path.join(ROOT, 'teamwork/tasks/suite/info-flood-route.yaml'), 'utf8').replace('when: { label: asks_specific }', 'when: { label: asks_nicely }');
    const { problems } = problemsWith((t) => t.replace('teamwork/tasks/suite/info-flood-route.yaml, arm: test', 'tasks/info-flood-route.yaml, arm: test'), { 'tasks/info-flood-route.yaml': broken });
    expect(problems.map((p) => p.field)).toEqual(['conditions.2.teamwork.task', 'teammates.0.lines.2.when.label']);
    expect(problems[0]!.message).toMatch(/is not usable \(see .*info-flood-route\.yaml\)/);
    expect(problems[1]!.message).toMatch(/asks_nicely/);
  });

  it('refuses a task whose model would call tools a person cannot call', () => {
    const { problems } = problemsWith((t) => t.replace('suite/info-flood-route.yaml, arm: alone', 'suite/takeover-failing-tests.yaml, arm: alone'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ field: 'conditions.0.teamwork.task' });
    expect(problems[0]!.message).toMatch(/a participant cannot call tools in the chat \(.*run_tests/);
  });

  it('refuses an answer field the study form lacks, and a provider that does not match the teamwork block', () => {
    const field = problemsWith((t) => t.replace('arm: calm, answer_field: route', 'arm: calm, answer_field: verdict'));
    expect(field.problems).toEqual([
      { file: expect.any(String), line: lineOf(field.text, 'answer_field: verdict'), field: 'conditions.1.teamwork.answer_field', message: 'study task "convoy-route" has no field "verdict" (fields: route)' },
    ]);
    const mismatch = problemsWith((t) => t.replace(/provider: teamwork\n(\s+teamwork: \{[^}]*arm: alone)/, 'provider: offline\n    model: m\n    system_prompt: p\n$1'));
    expect(mismatch.problems.map((p) => `${p.field}: ${p.message}`)).toContain('conditions.0.provider: a condition with a teamwork block must have provider "teamwork"');
    const missing = problemsWith((t) => t.replace(/\n\s+teamwork: \{[^}]*arm: alone[^}]*\}/, ''));
    expect(missing.problems.map((p) => `${p.field}: ${p.message}`)).toContain('conditions.0.teamwork: provider "teamwork" needs a teamwork block (task, arm)');
  });
});
