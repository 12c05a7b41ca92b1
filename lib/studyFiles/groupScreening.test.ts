/**
 * A group condition's screening questions at load: the shipped quota demo loads, and a quota on an answer whose key
 * names no screening question, or a question whose id is also a survey item, is refused with file, line and field.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from './studyConfig';

const ROOT = path.resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The shipped studies and surveys in a temp dir, group-quota-demo.yaml edited by `from` → `to`. */
function editedDemo(from: string, to: string): { studiesDir: string; surveysDir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-screening-'));
  temps.push(dir);
  const dirs = { studiesDir: path.join(dir, 'studies'), surveysDir: path.join(dir, 'surveys') };
  fs.cpSync(path.join(ROOT, 'studies'), dirs.studiesDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'surveys'), dirs.surveysDir, { recursive: true });
  const file = path.join(dirs.studiesDir, 'group-quota-demo.yaml');
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(from)) throw new Error(`test setup: ${from} not in group-quota-demo.yaml`);
  fs.writeFileSync(file, text.replace(from, to));
  return { ...dirs, file };
}

const lineOf = (file: string, needle: string) => fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle)) + 1;

function problemsOf(dirs: { studiesDir: string; surveysDir: string }): ConfigProblem[] {
  try {
    loadConfig(dirs);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('screening questions at load', () => {
  it('loads the quota demo with its screening question', () => {
    const demo = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') }).studies.get('group-quota-demo')!;
    const group = demo.conditions[0]!.group!;
    expect(group.screening?.map((q) => [q.id, q.options.map((o) => o.value)])).toEqual([['planning_experience', ['experienced', 'newcomer']]]);
    expect(group.form_by).toEqual({ quota: { source: 'answer', key: 'planning_experience', seats: { experienced: 1, newcomer: 2 } } });
  });

  it('refuses a quota on an answer whose key names no screening question, at the key', () => {
    const dirs = editedDemo('key: planning_experience', 'key: expertise');
    const [p, ...rest] = problemsOf(dirs);
    expect(rest).toEqual([]);
    expect(p!.file).toMatch(/group-quota-demo\.yaml$/);
    expect(p!.line).toBe(lineOf(dirs.file, 'key: expertise'));
    expect(`${p!.field}: ${p!.message}`).toBe(
      'conditions.0.group.form_by.quota.key: no screening question "expertise": a quota on an answer reads a question of group.screening (add one with id expertise)',
    );
    expect(String(new ConfigError([p!]).message)).toContain(`group-quota-demo.yaml:${p!.line}: conditions.0.group.form_by.quota.key: `);
  });

  it('refuses a screening question whose id is also an item of the study\'s survey', () => {
    const dirs = editedDemo('- id: planning_experience', '- id: satisfaction');
    fs.writeFileSync(dirs.file, fs.readFileSync(dirs.file, 'utf8').replace('key: planning_experience', 'key: satisfaction'));
    const problems = problemsOf(dirs);
    expect(problems.map((q) => [q.line, `${q.field}: ${q.message}`])).toEqual([
      [lineOf(dirs.file, '- id: satisfaction'), 'conditions.0.group.screening.0.id: "satisfaction" is also an item of survey "travel-post": give the screening question another id'],
    ]);
  });
});
