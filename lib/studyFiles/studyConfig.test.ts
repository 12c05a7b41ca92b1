import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem } from './studyConfig';

const ROOT = path.resolve(import.meta.dirname, '../..');
const STUDIES = path.join(ROOT, 'studies');
const SURVEYS = path.join(ROOT, 'surveys');
const temps: string[] = [];

afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Copies the shipped studies/surveys into a temp dir, applies edits, and returns the dirs. */
function workspace(edit: (dirs: { studiesDir: string; surveysDir: string }) => void) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-config-'));
  temps.push(dir);
  const dirs = { studiesDir: path.join(dir, 'studies'), surveysDir: path.join(dir, 'surveys') };
  fs.cpSync(STUDIES, dirs.studiesDir, { recursive: true });
  fs.cpSync(SURVEYS, dirs.surveysDir, { recursive: true });
  edit(dirs);
  return dirs;
}

function replaceIn(file: string, from: string | RegExp, to: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`test setup: ${String(from)} not found in ${file}`);
  fs.writeFileSync(file, next);
}

function lineOf(file: string, needle: string): number {
  const index = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes(needle));
  if (index < 0) throw new Error(`test setup: ${needle} not in ${file}`);
  return index + 1;
}

function problemsOf(dirs: { studiesDir: string; surveysDir: string }): ConfigProblem[] {
  try {
    loadConfig(dirs);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('loads the shipped example studies and surveys', () => {
    const config = loadConfig({ studiesDir: STUDIES, surveysDir: SURVEYS });
    expect([...config.studies.keys()].sort()).toEqual(['group-demo', 'group-quota-demo', 'teamwork-seat', 'travel-planning', 'visualization', 'wizard-demo']);
    const viz = config.studies.get('visualization')!;
    expect(viz.conditions.map((c) => c.id)).toEqual(['baseline', 'clarify-first']);
    expect(viz.tasks[0]!.fields.map((f) => f.kind)).toEqual(['text', 'code', 'image', 'text']);
    expect(viz.tasks[0]!.materials[0]!.name).toBe('study_habits.csv');
    expect(config.surveys.get(viz.survey)!.items.map((i) => i.id)).toEqual(
      expect.arrayContaining(['confidence', 'ai_usefulness', 'speed', 'satisfaction']),
    );
    expect(viz.definitionHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('loads the group demo and names file, line and field of a bad group or agents block', () => {
    const demo = loadConfig({ studiesDir: STUDIES, surveysDir: SURVEYS }).studies.get('group-demo')!;
    expect(demo.conditions[0]!.group).toMatchObject({ size: { min: 2, max: 3 }, lobby: { on_timeout: 'start_smaller' } });
    expect(demo.conditions[0]!.agents!.map((a) => a.name)).toEqual(['Facilitator']);
    const file = (d: { studiesDir: string }) => path.join(d.studiesDir, 'group-demo.yaml');
    const bad = workspace((d) => replaceIn(file(d), 'speaks: { every_n_messages: 3 }', 'speaks: { every_n_messages: 0 }'));
    const [p, ...rest] = problemsOf(bad);
    expect(rest).toEqual([]);
    expect(p!.file).toMatch(/group-demo\.yaml$/);
    expect(p!.field).toMatch(/^conditions\.0\.agents\.0\.speaks/);
    expect(p!.line).toBe(lineOf(file(bad), 'every_n_messages: 0'));
    const noCode = workspace((d) => replaceIn(file(d), /    lobby_timeout: L0GRP2026\n/, ''));
    expect(problemsOf(noCode).map((q) => `${q.field}: ${q.message}`)).toEqual(['completion.codes: condition "facilitated" forms groups: add a lobby_timeout completion code']);
  });

  it('names file, line and field for a value of the wrong kind', () => {
    const dirs = workspace((d) => replaceIn(path.join(d.studiesDir, 'visualization.yaml'), 'kind: image', 'kind: picture'));
    const [p, ...rest] = problemsOf(dirs);
    expect(rest).toEqual([]);
    expect(p!.file).toMatch(/visualization\.yaml$/);
    expect(p!.field).toBe('tasks.0.fields.2.kind');
    expect(p!.line).toBe(lineOf(path.join(dirs.studiesDir, 'visualization.yaml'), 'kind: picture'));
    expect(p!.message).toMatch(/text|code|image/);
  });

  it('names a missing required field at its parent', () => {
    const dirs = workspace((d) => replaceIn(path.join(d.studiesDir, 'travel-planning.yaml'), /  version: "2026-11-1"\n/, ''));
    const [p] = problemsOf(dirs);
    expect(p!.field).toBe('consent.version');
    expect(p!.line).toBe(lineOf(path.join(dirs.studiesDir, 'travel-planning.yaml'), 'text: |'));
  });

  it('reports YAML syntax errors with their line', () => {
    const dirs = workspace((d) => fs.appendFileSync(path.join(d.surveysDir, 'travel-post.yaml'), '  - id: [unclosed\n'));
    const problems = problemsOf(dirs);
    expect(problems[0]!.file).toMatch(/travel-post\.yaml$/);
    expect(problems[0]!.message).toMatch(/YAML syntax/);
    expect(problems[0]!.line).toBeGreaterThan(30);
  });

  it('rejects unknown keys (typos) instead of ignoring them', () => {
    const dirs = workspace((d) => replaceIn(path.join(d.studiesDir, 'visualization.yaml'), 'time_limit_minutes: 30', 'time_limit_minute: 30'));
    const problems = problemsOf(dirs);
    const fields = problems.map((p) => `${p.field}|${p.message}`);
    expect(fields.some((f) => f.startsWith('time_limit_minutes|'))).toBe(true);
    expect(problems.some((p) => /time_limit_minute\b/.test(p.message))).toBe(true);
  });

  it('checks cross-file references: survey id and material files', () => {
    const dirs = workspace((d) => {
      replaceIn(path.join(d.studiesDir, 'visualization.yaml'), 'survey: visualization-post', 'survey: no-such-survey');
      fs.rmSync(path.join(d.studiesDir, 'materials'), { recursive: true });
    });
    const problems = problemsOf(dirs);
    expect(problems.map((p) => p.field).sort()).toEqual(['survey', 'tasks.0.materials.0.path']);
    expect(problems.find((p) => p.field === 'survey')!.message).toMatch(/no survey "no-such-survey"/);
    expect(problems.find((p) => p.field === 'survey')!.line).toBe(lineOf(path.join(dirs.studiesDir, 'visualization.yaml'), 'survey: no-such'));
  });

  it('checks each task rubric against the rubrics directory: unknown id, invalid rubric file', () => {
    const dirs = workspace((d) => replaceIn(path.join(d.studiesDir, 'travel-planning.yaml'), 'rubric: travel-planning', 'rubric: no-such-rubric'));
    const [missing, ...rest] = problemsOf(dirs);
    expect(rest).toEqual([]);
    expect(missing).toMatchObject({ field: 'tasks.0.rubric', message: expect.stringMatching(/no rubric "no-such-rubric" in .*rubrics/) });
    expect(missing!.file).toMatch(/travel-planning\.yaml$/);
    expect(missing!.line).toBe(lineOf(path.join(dirs.studiesDir, 'travel-planning.yaml'), 'rubric: no-such-rubric'));

    const rubricsDir = path.join(path.dirname(dirs.studiesDir), 'rubrics');
    fs.cpSync(path.join(ROOT, 'rubrics'), rubricsDir, { recursive: true });
    const rubricFile = path.join(rubricsDir, 'visualization-analysis.yaml');
    replaceIn(rubricFile, /\n  - score: 1\n/, '\n  - score: 9\n');
    let err: unknown;
    try {
      loadConfig({ ...dirs, rubricsDir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    const inRubric = problems.filter((p) => p.file.endsWith('visualization-analysis.yaml'));
    expect(inRubric.length).toBeGreaterThan(0);
    expect(inRubric[0]!.line).toBe(lineOf(rubricFile, 'score: 9'));
    expect(problems.filter((p) => p.field === 'tasks.0.rubric').map((p) => path.basename(p.file)).sort()).toEqual(['travel-planning.yaml', 'visualization.yaml']);
    expect((err as ConfigError).message).toMatch(/visualization-analysis\.yaml:\d+: levels\[0\]\.score: /);
    expect(problems.find((p) => p.file.endsWith('visualization.yaml'))!.message).toMatch(/rubric "visualization-analysis" is invalid/);
  });

  it('rejects materials outside the studies directory', () => {
    const dirs = workspace((d) =>
      replaceIn(path.join(d.studiesDir, 'visualization.yaml'), 'path: materials/visualization/study_habits.csv', 'path: ../surveys/travel-post.yaml'),
    );
    expect(problemsOf(dirs)[0]).toMatchObject({ field: 'tasks.0.materials.0.path', message: 'must stay inside the studies directory' });
  });

  it('rejects duplicate ids, a redirect without {code}, and out-of-range numbers', () => {
    const dirs = workspace((d) => {
      const f = path.join(d.studiesDir, 'visualization.yaml');
      replaceIn(f, '- id: clarify-first', '- id: baseline');
      replaceIn(f, 'complete?cc={code}', 'complete?cc=FIXED');
      replaceIn(f, /temperature: 0.7/, 'temperature: 7');
    });
    const byField = Object.fromEntries(problemsOf(dirs).map((p) => [p.field, p.message]));
    expect(byField['conditions.1.id']).toMatch(/duplicate id "baseline"/);
    expect(byField['completion.redirect']).toMatch(/\{code\}/);
    expect(byField['conditions.0.temperature']).toBeDefined();
  });

  it('checks survey items: anchors must match points, attention check expected in range', () => {
    const dirs = workspace((d) => {
      const f = path.join(d.surveysDir, 'visualization-post.yaml');
      replaceIn(f, 'anchors: [Not at all useful, Extremely useful]', 'anchors: [Low, Middle, High]');
      replaceIn(f, 'expected: 4', 'expected: 9');
    });
    const byField = Object.fromEntries(problemsOf(dirs).map((p) => [p.field, p.message]));
    expect(byField['items.1.anchors']).toMatch(/2 labels .* or 5/);
    expect(byField['items.3.expected']).toMatch(/between 1 and points/);
  });

  it('rejects a file name that is not a valid id', () => {
    const dirs = workspace((d) => fs.copyFileSync(path.join(d.studiesDir, 'visualization.yaml'), path.join(d.studiesDir, 'Bad Name.yaml')));
    expect(problemsOf(dirs)[0]!.message).toMatch(/file name "Bad Name" is not a valid id/);
  });

  it('loads nothing when any file is bad (no half-loading), and lists every problem', () => {
    const dirs = workspace((d) => {
      replaceIn(path.join(d.studiesDir, 'travel-planning.yaml'), 'title: Planning a trip with an AI assistant', 'title: ""');
      replaceIn(path.join(d.surveysDir, 'travel-post.yaml'), 'points: 5', 'points: 1');
    });
    const err = (() => {
      try {
        loadConfig(dirs);
        return null;
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.problems.map((p) => path.basename(p.file)).sort()).toEqual(['travel-planning.yaml', 'travel-post.yaml']);
    expect(err!.message).toMatch(/travel-planning\.yaml:\d+: title:/);
  });

  it('refuses two files for one study id (x.yaml and x.yml), naming both', () => {
    const dirs = workspace((d) => fs.copyFileSync(path.join(d.studiesDir, 'visualization.yaml'), path.join(d.studiesDir, 'visualization.yml')));
    const problems = problemsOf(dirs);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/two files for the id "visualization"/);
    expect(problems[0]!.message).toContain('visualization.yaml');
    expect(problems[0]!.message).toContain('visualization.yml');
  });

  it('refuses two files for one survey id too', () => {
    const dirs = workspace((d) => fs.copyFileSync(path.join(d.surveysDir, 'travel-post.yaml'), path.join(d.surveysDir, 'travel-post.yml')));
    expect(problemsOf(dirs)[0]!.message).toMatch(/two files for the id "travel-post": .*travel-post\.yaml.*travel-post\.yml/);
  });

  it('reports a YAML alias bomb as "<file>: too many aliases", with no stack trace', () => {
    // Each level doubles: 2^20 copies of "lol" if expanded. The yaml library's alias cap stops it.
    const levels = ['a0: &a0 [lol, lol]', ...Array.from({ length: 20 }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}, *a${i}]`)];
    const dirs = workspace((d) => fs.writeFileSync(path.join(d.studiesDir, 'bomb.yaml'), levels.join('\n') + '\n'));
    let err: unknown;
    try {
      loadConfig(dirs);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const [p, ...rest] = (err as ConfigError).problems;
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ field: '', message: 'too many aliases' });
    expect(p!.file).toMatch(/bomb\.yaml$/);
    expect((err as ConfigError).message).toMatch(/bomb\.yaml: too many aliases/);
    expect((err as ConfigError).message).not.toMatch(/\n\s+at /);
  });

  it('refuses a material that is a symlink pointing outside the studies directory', () => {
    const outside = path.join(os.tmpdir(), `tandem-secret-${process.pid}.txt`);
    fs.writeFileSync(outside, 'root:x:0:0\n');
    try {
      const dirs = workspace((d) => {
        const link = path.join(d.studiesDir, 'materials', 'visualization', 'study_habits.csv');
        fs.rmSync(link);
        fs.symlinkSync(outside, link);
      });
      expect(problemsOf(dirs)[0]).toMatchObject({ field: 'tasks.0.materials.0.path', message: 'must stay inside the studies directory (it is a link to a file outside)' });
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });

  it('accepts a material symlink that stays inside the studies directory, and a studies directory reached through a link', () => {
    const dirs = workspace((d) => {
      const dir = path.join(d.studiesDir, 'materials', 'visualization');
      fs.renameSync(path.join(dir, 'study_habits.csv'), path.join(dir, 'real.csv'));
      fs.symlinkSync('real.csv', path.join(dir, 'study_habits.csv'));
    });
    const linked = `${dirs.studiesDir}-link`;
    fs.symlinkSync(dirs.studiesDir, linked);
    temps.push(linked);
    expect(loadConfig({ ...dirs, studiesDir: linked }).studies.has('visualization')).toBe(true);
  });

  it('reads export.free_text (default omitted) and names the field of a bad value', () => {
    expect(loadConfig({ studiesDir: STUDIES, surveysDir: SURVEYS }).studies.get('visualization')!.export.free_text).toBe('omitted');
    const redacted = workspace((d) => fs.appendFileSync(path.join(d.studiesDir, 'visualization.yaml'), 'export:\n  free_text: redacted\n'));
    expect(loadConfig(redacted).studies.get('visualization')!.export.free_text).toBe('redacted');
    const bad = workspace((d) => fs.appendFileSync(path.join(d.studiesDir, 'visualization.yaml'), 'export:\n  free_text: kept\n'));
    const [p] = problemsOf(bad);
    expect(p).toMatchObject({ field: 'export.free_text', line: lineOf(path.join(bad.studiesDir, 'visualization.yaml'), 'free_text: kept') });
    expect(p!.message).toMatch(/redacted|omitted/);
  });
});
