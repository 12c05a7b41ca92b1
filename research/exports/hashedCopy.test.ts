import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyFileHashed } from './hashedCopy';

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('copyFileHashed', () => {
  it('copies a file spanning many stream chunks byte for byte and reports its size and sha256', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-copy-'));
    const original = randomBytes(3 * 1024 * 1024 + 17); // > 40 chunks of the 64 KiB read buffer, odd tail
    writeFileSync(join(dir, 'in.bin'), original);
    const copied = await copyFileHashed(join(dir, 'in.bin'), join(dir, 'out.bin'));
    const written = readFileSync(join(dir, 'out.bin'));
    expect(written.equals(original)).toBe(true);
    expect(copied).toEqual({ bytes: original.length, sha256: sha(original) });
  });

  it('hashes an empty file as the sha256 of nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-copy-'));
    writeFileSync(join(dir, 'empty'), Buffer.alloc(0));
    expect(await copyFileHashed(join(dir, 'empty'), join(dir, 'copy'))).toEqual({
      bytes: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
  });

  it('refuses to overwrite an existing target and fails on a missing source', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-copy-'));
    writeFileSync(join(dir, 'a'), 'new');
    writeFileSync(join(dir, 'b'), 'old');
    await expect(copyFileHashed(join(dir, 'a'), join(dir, 'b'))).rejects.toThrow(/EEXIST/);
    expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('old');
    await expect(copyFileHashed(join(dir, 'missing'), join(dir, 'c'))).rejects.toThrow(/ENOENT/);
  });
});
