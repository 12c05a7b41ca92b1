import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError } from './inputError';
import { readJudgeScores } from './readJudgeScores';
import { readAnnotationsCsv, readLabelsCsv, utteranceKey } from './readLabelsCsv';
import { readUtterances } from './readMessagesJsonl';
import { readRatingsCsv } from './readRatingsCsv';
import { labelsTemplate, ratingsTemplate } from './writeTemplates';

const fixture = resolve(import.meta.dirname, '../../../../tests/fixtures/agreement');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agreement-io-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('readJudgeScores', () => {
  it('prefers quality.csv and leaves unparsed sessions missing', () => {
    const judge = readJudgeScores(join(fixture, 'dataset'))!;
    expect(judge.source).toBe('quality.csv');
    expect(judge.scores.get('s08')).toBe(3.5);
    expect(judge.scores.has('s10')).toBe(false);
    expect(judge.scores.size).toBe(9);
  });

  it('falls back to the median of parsed samples in judgements.csv', () => {
    const ds = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(
      join(ds, 'judgements.csv'),
      [
        'session_id,rubric_id,rubric_hash,model,sample,score,parse_ok,cached',
        'a,r,h1,m,0,4,true,false', 'a,r,h1,m,1,2,true,false', 'a,r,h1,m,2,5,true,true',
        'b,r,h1,m,0,3,true,false', 'b,r,h1,m,1,,false,false', 'b,r,h1,m,2,4,true,false',
        'c,r,h1,m,0,,false,false',
      ].join('\n'),
    );
    const judge = readJudgeScores(ds)!;
    expect(judge.source).toBe('judgements.csv');
    expect([...judge.scores]).toEqual([['a', 4], ['b', 3.5]]);
  });

  it('uses only the latest artifact version in an exported judgements.csv', () => {
    const ds = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(
      join(ds, 'judgements.csv'),
      [
        'session_id,rubric_id,rubric_hash,model,sample,score,parse_ok,cached,artifact_version',
        'a,r,h0,m,0,1,true,false,1', 'a,r,h0,m,1,1,true,false,1',
        'a,r,h1,m,0,5,true,false,2', 'a,r,h1,m,1,4,true,false,2',
      ].join('\n'),
    );
    expect(readJudgeScores(ds)!.scores.get('a')).toBe(4.5);
  });

  it('refuses a session judged with two rubric versions, naming both lines', () => {
    const ds = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(join(ds, 'judgements.csv'), 'session_id,rubric_hash,score,parse_ok\na,h1,4,true\na,h2,4,true\n');
    expect(() => readJudgeScores(ds)).toThrow(/line 3, column "rubric_hash": session "a" was judged with two rubric versions \(h1 on line 2/);
  });

  it('prefers the quality column of sessions.csv to judgements.csv, and returns null without any judge scores', () => {
    const ds = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(join(ds, 'sessions.csv'), 'session_id,task,quality\na,t,4\nb,t,\n');
    writeFileSync(join(ds, 'judgements.csv'), 'session_id,rubric_hash,score,parse_ok\na,h1,2,true\n');
    expect(readJudgeScores(ds)).toEqual({ source: 'sessions.csv', scores: new Map([['a', 4]]) });
    const empty = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(join(empty, 'sessions.csv'), 'session_id,task\na,t\n');
    expect(readJudgeScores(empty)).toBeNull();
  });

  it('rejects a quality outside 1–5', () => {
    const ds = mkdtempSync(join(dir, 'ds-'));
    writeFileSync(join(ds, 'quality.csv'), 'session_id,quality,samples,parsed\na,0,3,3\n');
    expect(() => readJudgeScores(ds)).toThrow(/quality\.csv, line 2, column "quality": quality must be empty or a number 1–5/);
  });
});

describe('readRatingsCsv', () => {
  it('reads scores, treats empty as missing and reports missing columns', () => {
    const ratings = readRatingsCsv(join(fixture, 'ratings.csv'));
    expect([...ratings.keys()]).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect(ratings.get('bob')!.size).toBe(8);
    expect(ratings.get('bob')!.has('s09')).toBe(false);
    const file = write('cols.csv', 'session,rater,score\ns01,a,3\n');
    expect(() => readRatingsCsv(file)).toThrow(/cols\.csv, line 1: missing column\(s\) session_id/);
    expect(() => readRatingsCsv(join(dir, 'absent.csv'))).toThrow(InputError);
  });

  it('counts lines of quoted multi-line cells and reports malformed CSV', () => {
    const file = write('multi.csv', 'session_id,rater,note,score\ns01,a,"two\nlines",3\ns02,a,ok,9\n');
    expect(() => readRatingsCsv(file)).toThrow(/line 4, column "score"/);
    const broken = write('broken.csv', 'session_id,rater,score\ns01,a,"3\n');
    expect(() => readRatingsCsv(broken)).toThrow(/broken\.csv, line 2: not valid CSV: Quote Not Closed/);
  });

  it('names the right line after skipped empty lines', () => {
    const file = write('gaps.csv', 'session_id,rater,score\ns01,a,3\n\n\ns02,a,9\n');
    expect(() => readRatingsCsv(file)).toThrow(/gaps\.csv, line 5, column "score"/);
  });
});

describe('readLabelsCsv', () => {
  it('skips unlabelled rows and splits grounding acts', () => {
    const labels = readLabelsCsv(join(fixture, 'labels.csv'));
    expect(labels.get('bob')!.size).toBe(6); // s02 turn 2 left blank
    const u = labels.get('alice')!.get(utteranceKey('s01', 1))!;
    expect(u.friction).toBe('probing');
    expect([...u.grounding]).toEqual(['clarification', 'response']);
  });

  it('requires friction once grounding is filled in', () => {
    const file = write('l.csv', 'session_id,turn,speaker,friction,grounding,rater\ns01,0,user,,response,alice\n');
    expect(() => readLabelsCsv(file)).toThrow(/line 2, column "friction": friction is required/);
  });

  it('reads annotations.csv as the rater "llm"', () => {
    const llm = readAnnotationsCsv(join(fixture, 'dataset/annotations.csv'));
    expect([...llm.keys()]).toEqual(['llm']);
    expect(llm.get('llm')!.size).toBe(7);
  });
});

describe('templates', () => {
  it('writes a ratings template that reads back once filled in', () => {
    const text = ratingsTemplate([{ session_id: 's01', task: 'travel_planning' }, { session_id: 's02' }], 'erin');
    expect(text).toBe('session_id,task,rater,score\ns01,travel_planning,erin,\ns02,,erin,\n');
    const unfilled = readRatingsCsv(write('t1.csv', text));
    expect(unfilled.get('erin')!.size).toBe(0);
    const filled = readRatingsCsv(write('t2.csv', text.replace('erin,\ns02', 'erin,4\ns02')));
    expect([...filled.get('erin')!]).toEqual([['s01', 4]]);
  });

  it('lists utterances from messages.jsonl with text, in turn order, and reads back once filled in', () => {
    const utterances = readUtterances(join(fixture, 'dataset/messages.jsonl'));
    expect(utterances.map((u) => `${u.session_id}#${u.turn}:${u.speaker}`)).toEqual([
      's01#0:user', 's01#1:agent', 's01#2:user', 's01#3:agent', 's02#0:user', 's02#1:agent', 's02#2:user',
    ]);
    const text = labelsTemplate(utterances, 'erin');
    const file = write('lt.csv', text);
    expect(readFileSync(file, 'utf8').split('\n')[4]).toBe('s01,3,agent,"Got it: 800 euros, outdoor focus. Day 1: Alfama walk, ""tram 28"".",,,erin');
    expect(readLabelsCsv(file).size).toBe(0); // nothing labelled yet
    const filled = write('lt2.csv', text.replace('tram 28"".",,,erin', 'tram 28"".",reinforcement,acknowledgement;repeat,erin'));
    const labels = readLabelsCsv(filled).get('erin')!;
    expect(labels.get(utteranceKey('s01', 3))).toMatchObject({ speaker: 'agent', friction: 'reinforcement', line: 5 });
  });

  it('names the line of a bad messages.jsonl record', () => {
    const file = write('m.jsonl', '{"session_id":"a","seq":1,"role":"user","text":"hi"}\n{"session_id":"a","seq":"x","role":"user"}\n');
    expect(() => readUtterances(file)).toThrow(/m\.jsonl, line 2, column "seq"/);
  });
});
