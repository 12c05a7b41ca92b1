import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { datasetStudyId, readDatasetSessions } from './datasetSource';
import { loadRubrics } from '../../lib/studyFiles/rubricFiles';
import { judgeTargets } from './targets';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tandem-dataset-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('reading a dataset directory', () => {
  it('takes the latest artifact version and orders utterances by seq with 0-based turns', () => {
    const sessions = readDatasetSessions(join(import.meta.dirname, 'fixtures/dataset'));
    expect(sessions.map((s) => s.sessionId)).toEqual(['p001', 'p002', 'p003', 'p004']);
    expect(sessions[0]!.artifact?.version).toBe(2);
    expect(sessions[0]!.utterances.map((u) => `${u.turn}:${u.speaker}`)).toEqual(['0:user', '1:agent', '2:user', '3:agent']);
    expect(sessions[3]!.artifact).toBeNull();
  });

  it('names file and line of a bad sessions.csv row (multi-line cells counted)', () => {
    writeFileSync(join(dir, 'sessions.csv'), 'session_id,task\ns1,travel_planning\n"s2\nx",travel\n,tabular\n');
    expect(() => readDatasetSessions(dir)).toThrow(`${join(dir, 'sessions.csv')}:5: session_id:`);
  });

  it('names file and line of a bad artifacts.jsonl row', () => {
    writeFileSync(join(dir, 'sessions.csv'), 'session_id,task\ns1,travel_planning\n');
    writeFileSync(join(dir, 'artifacts.jsonl'), '{"session_id":"s1","version":1,"fields":{}}\n{"session_id":"s1","version":"two","fields":{}}\n');
    expect(() => readDatasetSessions(dir)).toThrow(`${join(dir, 'artifacts.jsonl')}:2: version:`);
    writeFileSync(join(dir, 'artifacts.jsonl'), '{not json\n');
    expect(() => readDatasetSessions(dir)).toThrow(/artifacts\.jsonl:1: not valid JSON/);
  });

  it('a task without a rubric is an error that suggests --rubric; --rubric then applies', () => {
    writeFileSync(join(dir, 'sessions.csv'), 'session_id,task\ns1,knitting\n');
    writeFileSync(join(dir, 'artifacts.jsonl'), '{"session_id":"s1","version":1,"fields":{"pattern":"k2p2"}}\n');
    const sessions = readDatasetSessions(dir);
    expect(() => judgeTargets(sessions, loadRubrics())).toThrow(/no rubric for task "knitting": pass --rubric <id>/);
    expect(judgeTargets(sessions, loadRubrics(), 'related-work')[0]!.rubric.rubric.id).toBe('related-work');
  });

  it('finds the study id in the export manifest (study.id), else null', () => {
    expect(datasetStudyId(dir)).toBeNull();
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ schema_version: '1.0.0', study: { id: 'visualization', title: 'Viz' } }));
    expect(datasetStudyId(dir)).toBe('visualization');
    writeFileSync(join(dir, 'manifest.json'), '{broken');
    expect(datasetStudyId(dir)).toBeNull();
  });
});
