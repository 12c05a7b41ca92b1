import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadRubricFile, loadRubrics, rubricForTask, DEFAULT_RUBRICS_DIR } from './rubricFiles';
import { canonicalJson, parseRubric, RubricValidationError } from '../../common/rubric';

const tmp = mkdtempSync(join(tmpdir(), 'tandem-rubric-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const travelText = readFileSync(join(DEFAULT_RUBRICS_DIR, 'travel-planning.yaml'), 'utf8');

function writeVariant(name: string, edit: (doc: any) => void): string {
  const doc = parse(travelText);
  edit(doc);
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(file, stringify(doc));
  return file;
}

describe('rubric files', () => {
  it('the repo ships one valid rubric per task kind', () => {
    const rubrics = loadRubrics();
    expect([...rubrics.keys()].sort()).toEqual(['related-work', 'tabular-analysis', 'travel-planning', 'visualization-analysis']);
    for (const { rubric, hash } of rubrics.values()) {
      expect(rubric.levels.map((l) => l.score)).toEqual([1, 2, 3, 4, 5]);
      expect(rubric.inputs).toContain('artifact');
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(rubricForTask(rubrics, 'travel_planning')?.rubric.id).toBe('travel-planning');
    expect(rubricForTask(rubrics, 'related_work')?.rubric.id).toBe('related-work');
    expect(rubricForTask(rubrics, 'knitting')).toBeUndefined();
  });

  it('the hash ignores comments and key order but changes with the content', () => {
    const original = loadRubricFile(join(DEFAULT_RUBRICS_DIR, 'travel-planning.yaml'));
    const reformatted = writeVariant('travel-planning', () => {});
    expect(loadRubricFile(reformatted).hash).toBe(original.hash);
    const edited = writeVariant('travel-planning', (doc) => {
      doc.levels[2].criteria[0] = 'Something else.';
    });
    expect(loadRubricFile(edited).hash).not.toBe(original.hash);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });

  it.each([
    ['a level with a bad score', (d: any) => (d.levels[2].score = 7), 'levels[2].score'],
    ['four levels', (d: any) => d.levels.pop(), 'levels: must have exactly five levels'],
    ['levels out of order', (d: any) => d.levels.reverse(), 'levels: levels must be listed in order'],
    ['no artifact input', (d: any) => (d.inputs = ['task_request']), 'inputs: must include "artifact"'],
    ['an unknown input', (d: any) => (d.inputs = ['artifact', 'vibes']), 'inputs[1]'],
    ['an unknown key', (d: any) => (d.colour = 'blue'), 'colour'],
    ['empty criteria', (d: any) => (d.levels[0].criteria = []), 'levels[0].criteria'],
  ])('rejects %s, naming the file and the field', (_label, edit, expected) => {
    const file = writeVariant('travel-planning', edit);
    expect(() => loadRubricFile(file)).toThrow(RubricValidationError);
    try {
      loadRubricFile(file);
    } catch (err) {
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toContain(expected);
    }
  });

  it('rejects an id that does not match the file name, and YAML syntax errors', () => {
    expect(() => parseRubric(travelText, 'rubrics/other.yaml', 'other')).toThrow(/rubrics\/other.yaml.*\n\s+line 2: id: "travel-planning" does not match/);
    expect(() => parseRubric('id: [unclosed', 'x.yaml')).toThrow(/x.yaml: invalid rubric\n\s+line 1: YAML syntax/);
  });

  it('names the line of the offending field', () => {
    const text = travelText.replace('  - score: 3\n', '  - score: 9\n');
    const line = text.split('\n').findIndex((l) => l === '  - score: 9') + 1;
    expect(() => parseRubric(text, 'rubrics/travel-planning.yaml')).toThrow(`line ${line}: levels[2].score`);
  });
});
