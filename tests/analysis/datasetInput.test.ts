import { describe, it, expect } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { readAnnotationsFile } from '../../research/analysis/input/annotationsFile';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../research/analysis/summary';
import { runAnalysis } from '../../research/analysis/runAnalysis';
import { productivityCsv } from '../../research/analysis/output/productivityCsv';
import { parse } from 'csv-parse/sync';

const fixture = fileURLToPath(new URL('../fixtures/analysis-reference/', import.meta.url));
const HEADER = 'session_id,task,quality,user_tokens,agent_tokens,user_turns,agent_turns,likert_ease';

function dataset(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-input-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const noOptions = { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 };

describe('dataset validation: errors name file, line and column; nothing is written', () => {
  it.each([
    ['missing column', { 'sessions.csv': 'session_id,quality\na,3\n' }, 'sessions.csv, line 1, column "task": missing required column'],
    ['non-numeric quality', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\nb,t,good,1,1,1,1,\n` }, 'sessions.csv, line 3, column "quality": not a number (got "good")'],
    ['negative tokens', { 'sessions.csv': `${HEADER}\na,t,3,-4,1,1,1,\n` }, 'sessions.csv, line 2, column "user_tokens": must be ≥ 0'],
    ['non-integer tokens', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\nb,t,3,1,12.5,1,1,\n` }, 'sessions.csv, line 3, column "agent_tokens": not a whole number (got "12.5")'],
    ['non-integer turns', { 'sessions.csv': `${HEADER}\na,t,3,1,1,2.0001,1,\n` }, 'sessions.csv, line 2, column "user_turns": not a whole number'],
    ['non-numeric likert', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,x\n` }, 'sessions.csv, line 2, column "likert_ease": not a number'],
    ['duplicate session id', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\nb,t,3,1,1,1,1,\na,t,2,1,1,1,1,\n` }, 'sessions.csv, line 4, column "session_id": duplicate session id "a" (first on line 2)'],
    ['empty task', { 'sessions.csv': `${HEADER}\na,,3,1,1,1,1,\n` }, 'sessions.csv, line 2, column "task": value is empty'],
    ['extra field', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,,9\n` }, 'sessions.csv, line 2: expected 8 fields like the header, got 9'],
    ['short annotation row', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'annotations.csv': 'session_id,turn,speaker,friction,grounding\na,0,user\n' }, 'annotations.csv, line 2: expected 5 fields like the header, got 3'],
    ['malformed quoting', { 'sessions.csv': `${HEADER}\n"a,t,3,1,1,1,1,\n` }, 'sessions.csv'],
    ['no counts and no messages', { 'sessions.csv': 'session_id,task,quality\na,t,3\n' }, 'sessions.csv, line 1, column "user_tokens": missing column and no messages.jsonl'],
    ['annotation for unknown session', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'annotations.csv': 'session_id,turn,speaker,friction,grounding\na,0,user,none,\nzz,1,agent,none,\n' }, 'annotations.csv, line 3, column "session_id": session id "zz" is not in sessions.csv'],
    ['bad speaker', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'annotations.csv': 'session_id,turn,speaker,friction,grounding\na,0,robot,none,\n' }, 'annotations.csv, line 2, column "speaker"'],
    ['bad turn', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'annotations.csv': 'session_id,turn,speaker,friction,grounding\na,1.5,user,none,\n' }, 'annotations.csv, line 2, column "turn": not a non-negative integer (got "1.5")'],
    ['annotations header', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'annotations.csv': 'session_id,turn,speaker,grounding\n' }, 'annotations.csv, line 1, column "friction": missing required column'],
    ['bad messages line', { 'sessions.csv': 'session_id,task,quality\na,t,3\n', 'messages.jsonl': '{"session_id":"a","role":"user","text":"hi"}\n{oops\n' }, 'messages.jsonl, line 2: invalid JSON'],
    ['quality.csv unknown id', { 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n`, 'quality.csv': 'session_id,quality,samples,parsed\nq,4,3,3\n' }, 'quality.csv, line 2, column "session_id"'],
  ])('%s', async (_name, files, message) => {
    const dir = dataset(files);
    const out = join(dir, 'out');
    await expect(runAnalysis(dir, out, noOptions)).rejects.toThrow(message);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(Object.keys(files).sort());
  });

  it('names an unreadable file', async () => {
    const dir = dataset({ 'sessions.csv': `${HEADER}\na,t,3,1,1,1,1,\n` });
    mkdirSync(join(dir, 'annotations.csv')); // a directory cannot be read as a file
    await expect(runAnalysis(dir, join(dir, 'out'), noOptions)).rejects.toThrow(/^annotations\.csv: cannot read file/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});

describe('dataset reading', () => {
  it('reads quoted annotations (csv-parse path) exactly like the fast path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-quoted-'));
    const text = readFileSync(join(fixture, 'annotations.csv'), 'utf8');
    // quote every grounding cell: same content, but now the file must go through csv-parse
    const quoted = text.split('\r\n').map((line, i) => (i === 0 || line === '' ? line : line.replace(/,([^,]*)$/, ',"$1"'))).join('\n');
    writeFileSync(join(dir, 'annotations.csv'), quoted);
    const index = new Map(loadDataset(fixture).sessions.ids.map((id, i) => [id, i]));
    const fast = readAnnotationsFile(join(fixture, 'annotations.csv'), index);
    const slow = readAnnotationsFile(join(dir, 'annotations.csv'), index);
    expect(slow.size).toBe(4294);
    expect(slow).toEqual(fast);
  });

  it('reads a quoted, CRLF, BOM-prefixed sessions.csv and writes productivity.csv that parses back', () => {
    const dir = dataset({
      'sessions.csv': '\ufeff' + `${HEADER}\r\n"a","plan, then ""build""",3,10,20,1,1,4\r\nb,"plan, then ""build""",5,30,20,1,1,\r\n`,
      'annotations.csv': 'session_id,turn,speaker,friction,grounding\r\n a , 0 ,\tagent , probing , repair ; display \r\n',
    });
    const d = loadDataset(dir);
    expect(d.sessions.tasks).toEqual(['plan, then "build"', 'plan, then "build"']);
    expect(Array.from(d.sessions.likert[0]!)).toEqual([4, NaN]);
    expect(d.annotations?.labels).toEqual(['probing', 'repair', 'display']);
    expect(d.annotations?.speaker[0]).toBe(1);
    const csv = productivityCsv(d.sessions, analyzeDataset(d, noOptions));
    const rows = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.session_id, r.task, r.quality, r.cost, r.quadrant])).toEqual([
      ['a', 'plan, then "build"', '3', '20', 'cheap_failure'],
      ['b', 'plan, then "build"', '5', '40', 'costly_success'],
    ]);
  });

  it('computes token and turn counts from messages.jsonl with o200k_base', () => {
    const dir = dataset({
      'sessions.csv': 'session_id,task,quality\na,t,3\nb,t,4\nc,t,5\n',
      'messages.jsonl': [
        { session_id: 'a', seq: 1, role: 'user', text: 'Hello, world!' }, // 4 tokens in o200k_base
        { session_id: 'a', seq: 2, role: 'assistant', text: 'The quick brown fox jumps over the lazy dog.' }, // 10 tokens
        { session_id: 'a', seq: 3, role: 'system', text: 'ignored' },
        { session_id: 'b', seq: 1, role: 'user', text: 'x <|endoftext|> y' }, // special token text counted as text
        { session_id: 'b', seq: 2, role: 'assistant', text: 'stored', tokens: 17 }, // stored count wins
      ].map((m) => JSON.stringify(m)).join('\n'),
    });
    const d = loadDataset(dir);
    expect(d.countsSource).toBe('messages.jsonl');
    expect(Array.from(d.sessions.counts.user_tokens.subarray(0, 1))).toEqual([4]);
    expect(Array.from(d.sessions.counts.agent_tokens)).toEqual([10, 17, 0]);
    expect(Array.from(d.sessions.counts.user_turns)).toEqual([1, 1, 0]);
    expect(d.sessions.counts.user_tokens[1]).toBeGreaterThan(3);
  });

  it('lets quality.csv override and fill quality', () => {
    const dir = dataset({
      'sessions.csv': `${HEADER}\na,t,3,10,10,1,1,\nb,t,,20,10,1,1,\nc,t,2,30,10,1,1,\n`,
      'quality.csv': 'session_id,quality,samples,parsed\na,5,3,3\nb,4,3,3\nc,,3,0\n',
    });
    const d = loadDataset(dir);
    expect(Array.from(d.sessions.quality)).toEqual([5, 4, 2]);
    expect(d.judgedQuality).toBe(2);
  });

  it('handles a dataset with no quality at all: Likert section only', () => {
    const dir = dataset({
      'sessions.csv': 'session_id,task,user_tokens,agent_tokens,user_turns,agent_turns,likert_a,likert_b\n' +
        ['s1,t,1,1,1,1,1,2', 's2,t,1,1,1,1,2,2', 's3,t,1,1,1,1,3,5', 's4,t,1,1,1,1,4,4', 's5,t,1,1,1,1,,1'].join('\n'),
    });
    const s = analyzeDataset(loadDataset(dir), noOptions).summary;
    expect(s.n_scored).toBe(0);
    expect(s.n_unscored).toBe(5);
    expect(s.sessions).toEqual({});
    expect(s.quartiles).toEqual({ top: [], bottom: [] });
    // scipy.stats.spearmanr([1,2,3,4],[2,2,5,4]) -> statistic 0.7378647873726218, pvalue 0.26213521262737816
    expect(s.likert_correlations['a|b']?.n).toBe(4);
    expect(s.likert_correlations['a|b']?.rho).toBeCloseTo(0.7378647873726218, 12);
    expect(s.likert_correlations['a|b']?.p).toBeCloseTo(0.26213521262737816, 12);
  });

  it('accepts quality on a 1–10 scale with half points', () => {
    const dir = dataset({
      'sessions.csv': `${HEADER}\na,t,9.5,10,10,1,1,\nb,t,2,20,10,1,1,\nc,t,7,30,10,1,1,\n`,
    });
    const s = analyzeDataset(loadDataset(dir), noOptions).summary;
    // scipy.stats.zscore([9.5,2,7], ddof=1)[0] -> 0.8728715609439694
    expect(s.sessions.a?.z_quality).toBeCloseTo(0.8728715609439694, 12);
  });
});

describe('copying the shared fixture', () => {
  it('is byte-identical to /work/shared when that folder exists', () => {
    const shared = '/work/shared/fixtures/analysis-reference';
    if (!existsSync(shared)) return;
    for (const f of ['sessions.csv', 'annotations.csv', 'expected.json']) {
      expect(readFileSync(join(fixture, f)).equals(readFileSync(join(shared, f))), f).toBe(true);
    }
  });
});
