import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { DatasetError } from './datasetError';
import { fileContainsQuote } from './csvLines';
import { annotationHeader, readAnnotationChunk, readAnnotationsFile, type AnnotationChunk, type AnnotationHeader, type AnnotationTable } from './annotationsFile';
import { replicateThreads, replicateWorkerPool } from '../parallel/runReplicates';

/**
 * annotations.csv read on the analysis threads at once (runReplicates' workers, which the bootstraps use next):
 * the file is cut at line breaks into ranges that the calling thread and the workers claim from a shared counter;
 * the ranges' rows are then put together in file order, their label ids renumbered in order of first appearance,
 * so the table is the one a single pass gives, and so is the first bad cell's error, line included.
 * Files with quotes, small files and one thread keep the single pass (readAnnotationsFile).
 */
export function readAnnotations(path: string, sessionIndex: Map<string, number>, sizes: RangeSizes = DEFAULT_SIZES): AnnotationTable {
  lastRead = null;
  const { threads } = replicateThreads();
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  if (threads <= 1 || size < sizes.parallelFromBytes || fileContainsQuote(path)) return readAnnotationsFile(path, sessionIndex);
  const head = headerLine(path);
  if (head === null) return readAnnotationsFile(path, sessionIndex);
  const file = basename(path);
  const header = annotationHeader(file, head.fields, 1);
  let chunks: AnnotationChunk[];
  try {
    const bounds = rangeBounds(path, head.end, size, Math.min(MAX_RANGES, Math.ceil((size - head.end) / sizes.rangeBytes)));
    chunks = readRanges(path, sessionIndex, header, bounds);
  } catch (error) {
    throw new DatasetError(file, null, null, `cannot read file (${(error as Error).message})`); // as readAnnotationsFile says it
  }
  return mergeChunks(file, chunks);
}

export interface RangeSizes {
  /** Smaller files are read in one pass. */
  parallelFromBytes: number;
  /** About how large a range is. */
  rangeBytes: number;
}

/** Below 32 MB one pass takes under half a second (~12 ms a megabyte): not worth sharing. */
const DEFAULT_SIZES: RangeSizes = { parallelFromBytes: 32 * 1024 * 1024, rangeBytes: 4 * 1024 * 1024 };
const MAX_RANGES = 256;

let lastRead: { ranges: number; byWorkers: number } | null = null;

/** How the last parallel read was shared (null: it was one pass): its ranges, and how many the workers read. */
export function lastParallelRead(): { ranges: number; byWorkers: number } | null {
  return lastRead;
}

// control words: the next range to claim, ranges finished (by any thread)
const NEXT = 0;
const DONE = 1;
/** A worker silent this long (ms) with ranges still out is given up on: the calling thread reads them itself. */
const STALL_MS = 30_000;

/** What a worker is sent: where the ranges are, and how to read them. */
export interface AnnotationRangesJob {
  kind: 'annotationRanges';
  path: string;
  header: AnnotationHeader;
  bounds: number[];
  sessionIds: string[];
  sessionIndices: Int32Array;
  control: Int32Array;
  port: MessagePort;
}

type RangeMessage = { range: number; chunk: AnnotationChunk } | { range: number; failed: string };

/** The first line (the header) when it is a non-empty line within the first 64 kB: its fields and where the rows start. */
function headerLine(path: string): { fields: string[]; end: number } | null {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const nl = buffer.subarray(0, read).indexOf(10);
    if (nl < 0) return null;
    const text = buffer.toString('utf8', 0, nl).replace(/^\ufeff/, '').replace(/\r$/, '');
    return text.trim() === '' ? null : { fields: text.split(','), end: nl + 1 };
  } finally {
    closeSync(fd);
  }
}

/** `count` ranges of [start, size) about equal in bytes, each starting just after a line break: their count + 1 bounds. */
function rangeBounds(path: string, start: number, size: number, count: number): number[] {
  const bounds = [start];
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    for (let i = 1; i < count; i++) {
      let at = Math.max(bounds[bounds.length - 1]!, Math.floor(start + ((size - start) * i) / count));
      for (;;) {
        const read = readSync(fd, buffer, 0, buffer.length, at);
        if (read === 0) return [...bounds, size];
        const nl = buffer.subarray(0, read).indexOf(10);
        if (nl >= 0) {
          at += nl + 1;
          break;
        }
        at += read;
      }
      if (at >= size) break;
      if (at > bounds[bounds.length - 1]!) bounds.push(at);
    }
  } finally {
    closeSync(fd);
  }
  return [...bounds, size];
}

/** Reads every range, on this thread and the workers; the ranges in file order. */
function readRanges(path: string, sessionIndex: Map<string, number>, header: AnnotationHeader, bounds: number[]): AnnotationChunk[] {
  const ranges = bounds.length - 1;
  const read = (r: number) => readAnnotationChunk(path, sessionIndex, header, { start: bounds[r]!, end: bounds[r + 1]! });
  const control = new Int32Array(new SharedArrayBuffer(8));
  // each worker sends its ranges on a port of its own, read here synchronously (this thread does not return to its loop)
  const ports: MessagePort[] = [];
  const workers = replicateWorkerPool();
  if (workers.length > 0) {
    const job = { kind: 'annotationRanges' as const, path, header, bounds, sessionIds: [...sessionIndex.keys()], sessionIndices: Int32Array.from(sessionIndex.values()), control };
    for (const worker of workers) {
      const { port1, port2 } = new MessageChannel();
      ports.push(port1);
      worker.postMessage({ ...job, port: port2 } satisfies AnnotationRangesJob, [port2]);
    }
  }
  const chunks: Array<AnnotationChunk | undefined> = new Array(ranges);
  let mine = 0;
  for (let r = Atomics.add(control, NEXT, 1); r < ranges; r = Atomics.add(control, NEXT, 1)) {
    chunks[r] = read(r);
    mine++;
    Atomics.add(control, DONE, 1);
  }
  let missing = ranges - mine;
  let lastProgress = performance.now();
  while (missing > 0 && performance.now() - lastProgress < STALL_MS) {
    let received = false;
    for (const port of ports) {
      const message = receiveMessageOnPort(port)?.message as RangeMessage | undefined;
      if (message === undefined) continue;
      received = true;
      if (chunks[message.range] !== undefined) continue;
      // a range a worker could not read (not a bad cell: those come in the chunk) is read here, to throw here
      chunks[message.range] = 'failed' in message ? read(message.range) : message.chunk;
      missing--;
    }
    if (received) lastProgress = performance.now();
    else Atomics.wait(control, DONE, Atomics.load(control, DONE), 20);
  }
  for (const port of ports) port.close();
  lastRead = { ranges, byWorkers: ranges - mine };
  return Array.from(chunks, (chunk, r) => chunk ?? read(r));
}

/** The ranges' rows as one table, label ids renumbered by first appearance in the file; the first bad cell thrown. */
function mergeChunks(file: string, chunks: AnnotationChunk[]): AnnotationTable {
  let size = 0;
  let groundings = 0;
  let linesBefore = 1; // the header
  for (const chunk of chunks) {
    if (chunk.error) throw new DatasetError(file, linesBefore + chunk.error.line, chunk.error.column, chunk.error.detail);
    linesBefore += chunk.lines;
    size += chunk.columns.size;
    groundings += chunk.columns.groundingIds.length;
  }
  const ids = new Map<string, number>();
  const frictionLabels = new Set<string>();
  const table = {
    size,
    session: new Int32Array(size),
    turn: new Int32Array(size),
    speaker: new Uint8Array(size),
    friction: new Int32Array(size),
    groundingStart: new Uint32Array(size + 1),
    groundingIds: new Uint16Array(groundings),
  };
  let row = 0;
  let grounding = 0;
  for (const { columns: c, labels, frictionLabels: friction } of chunks) {
    const id = labels.map((label) => {
      let global = ids.get(label);
      if (global === undefined) ids.set(label, (global = ids.size));
      return global;
    });
    for (const label of friction) frictionLabels.add(label);
    table.session.set(c.session, row);
    table.turn.set(c.turn, row);
    table.speaker.set(c.speaker, row);
    for (let i = 0; i < c.size; i++) {
      const f = c.friction[i]!;
      table.friction[row + i] = f < 0 ? f : id[f]!;
      table.groundingStart[row + i] = grounding + c.groundingStart[i]!;
    }
    for (let g = 0; g < c.groundingIds.length; g++) table.groundingIds[grounding + g] = id[c.groundingIds[g]!]!;
    row += c.size;
    grounding += c.groundingIds.length;
  }
  table.groundingStart[size] = grounding;
  return { ...table, labels: [...ids.keys()], frictionLabels };
}

/** A worker's part (parallel/replicateWorker.ts): claims ranges until none is left, and sends each back. */
export function readClaimedRanges(job: AnnotationRangesJob): void {
  const sessionIndex = new Map<string, number>();
  job.sessionIds.forEach((id, i) => sessionIndex.set(id, job.sessionIndices[i]!));
  const ranges = job.bounds.length - 1;
  for (let r = Atomics.add(job.control, NEXT, 1); r < ranges; r = Atomics.add(job.control, NEXT, 1)) {
    let message: RangeMessage;
    try {
      message = { range: r, chunk: readAnnotationChunk(job.path, sessionIndex, job.header, { start: job.bounds[r]!, end: job.bounds[r + 1]! }) };
    } catch (error) {
      message = { range: r, failed: String(error) };
    }
    const c = 'chunk' in message ? message.chunk.columns : null;
    job.port.postMessage(message, c ? [c.session.buffer, c.turn.buffer, c.speaker.buffer, c.friction.buffer, c.groundingStart.buffer, c.groundingIds.buffer] : []);
    Atomics.add(job.control, DONE, 1);
    Atomics.notify(job.control, DONE);
  }
  job.port.close();
}
