import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** What a copy wrote: its size and the sha256 of its bytes (hex). */
export interface CopiedFile {
  bytes: number;
  sha256: string;
}

/**
 * Copies `source` to `target` as a stream, hashing the bytes as they pass, so the hash describes
 * exactly what was written and memory holds one chunk at a time whatever the file's size.
 * `target` must not exist yet (`wx`): an export never overwrites a file.
 */
export async function copyFileHashed(source: string, target: string): Promise<CopiedFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(source), tap, createWriteStream(target, { flags: 'wx' }));
  return { bytes, sha256: hash.digest('hex') };
}
