import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDataset } from '../../research/analysis/input/dataset';
import { readAnnotationsFile } from '../../research/analysis/input/annotationsFile';
import { lastParallelRead, readAnnotations } from '../../research/analysis/input/parallelAnnotations';
import { configureReplicateThreads, replicateThreads, replicateWorkerPool, stopReplicateWorkers } from '../../research/analysis/parallel/runReplicates';

// annotations.csv read in byte ranges on two threads (input/parallelAnnotations.ts) must give the single pass's table
// and the single pass's first error. Ranges of ~1 kB here so that a small file makes a couple of hundred of them.

const fixture = fileURLToPath(new URL('../fixtures/analysis-reference/', import.meta.url));
const small = { parallelFromBytes: 0, rangeBytes: 1024 };
const index = new Map(loadDataset(fixture).sessions.ids.map((id, i) => [id, i]));
const fixtureText = readFileSync(join(fixture, 'annotations.csv'), 'utf8');
const before = replicateThreads();

function annotationsFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tandem-ranges-')), 'annotations.csv');
  writeFileSync(path, text);
  return path;
}

/** The error a read throws, as its message. */
function errorOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the read did not throw');
}

beforeAll(async () => {
  configureReplicateThreads({ threads: 2 });
  replicateWorkerPool();
  await new Promise((r) => setTimeout(r, 2000)); // the worker loads its modules: it then takes ranges from the start
});
afterAll(() => {
  stopReplicateWorkers();
  configureReplicateThreads(before);
});

describe('annotations.csv read in ranges on two threads', () => {
  it('gives the single pass\'s table (CRLF), with the worker reading some of the ranges', () => {
    const path = join(fixture, 'annotations.csv');
    const parallel = readAnnotations(path, index, small);
    const read = lastParallelRead();
    expect(read!.ranges).toBeGreaterThan(100);
    expect(read!.byWorkers).toBeGreaterThan(0);
    expect(read!.byWorkers).toBeLessThan(read!.ranges);
    expect(parallel.size).toBe(4294);
    expect(parallel).toEqual(readAnnotationsFile(path, index));
  });

  it('numbers labels by first appearance in the file, a label first seen in the last range included; no final line break', () => {
    const lines = fixtureText.split('\r\n').filter((l) => l !== '');
    const last = lines.length - 1;
    lines[last] = lines[last]!.replace(/,[^,]*,[^,]*$/, ',late_friction,late_grounding;display');
    const path = annotationsFile(lines.join('\n'));
    const parallel = readAnnotations(path, index, small);
    expect(lastParallelRead()!.ranges).toBeGreaterThan(100);
    expect(parallel.labels.slice(-2)).toEqual(['late_friction', 'late_grounding']);
    expect([...parallel.frictionLabels].at(-1)).toBe('late_friction');
    expect(parallel).toEqual(readAnnotationsFile(path, index));
  });

  it('throws the single pass\'s first error, its line counted over the whole file, when two ranges hold bad cells', () => {
    const lines = fixtureText.split('\r\n');
    lines[3000] = lines[3000]!.replace(/,(user|agent),/, ',robot,'); // line 3001
    lines[3999] = lines[3999]!.replace(/^[^,]*,\d+,/, (m) => m.replace(/\d+,$/, '1.5,')); // line 4000
    const path = annotationsFile(lines.join('\r\n'));
    const message = errorOf(() => readAnnotations(path, index, small));
    expect(message).toMatch(/^annotations\.csv, line 3001, column "speaker"/);
    expect(message).toBe(errorOf(() => readAnnotationsFile(path, index)));

    lines[3000] = fixtureText.split('\r\n')[3000]!;
    const second = annotationsFile(lines.join('\r\n'));
    expect(errorOf(() => readAnnotations(second, index, small))).toBe('annotations.csv, line 4000, column "turn": not a non-negative integer (got "1.5")');
  });

  it('reads small files, quoted files and one thread in one pass', () => {
    const path = join(fixture, 'annotations.csv');
    readAnnotations(path, index); // 0.2 MB, under the default 32 MB
    expect(lastParallelRead()).toBeNull();
    const quoted = annotationsFile(fixtureText.replace(/,([^,\r\n]*)\r\n/g, ',"$1"\r\n'));
    expect(readAnnotations(quoted, index, small)).toEqual(readAnnotationsFile(path, index));
    expect(lastParallelRead()).toBeNull();
    configureReplicateThreads({ threads: 1 });
    try {
      readAnnotations(path, index, small);
      expect(lastParallelRead()).toBeNull();
    } finally {
      configureReplicateThreads({ threads: 2 });
    }
  });
});
