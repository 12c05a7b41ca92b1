import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Append-only JSON Lines log of everything simulated participants sent and received. Each line is
 * one record; `close()` resolves once everything is flushed to disk.
 */
export interface LogRecord {
  /** Wall-clock time of the record (ms, sub-ms resolution). */
  t: number;
  /** Which simulated participant wrote it. */
  participant: number;
  kind: string;
  [field: string]: unknown;
}

export interface ParticipantLogSink {
  write(record: LogRecord): void;
}

export class JsonlLog implements ParticipantLogSink {
  private readonly stream: WriteStream;
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.stream = createWriteStream(path, { flags: 'a' });
  }
  write(record: LogRecord): void {
    this.stream.write(JSON.stringify(record) + '\n');
  }
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end((err?: Error | null) => (err ? reject(err) : resolve()));
    });
  }
}

/** Keeps records in memory (tests and in-process checks). */
export class MemoryLog implements ParticipantLogSink {
  readonly records: LogRecord[] = [];
  write(record: LogRecord): void {
    this.records.push(record);
  }
}

/** Writes to several sinks at once. */
export class TeeLog implements ParticipantLogSink {
  constructor(private readonly sinks: ParticipantLogSink[]) {}
  write(record: LogRecord): void {
    for (const s of this.sinks) s.write(record);
  }
}
