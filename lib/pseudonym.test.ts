import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrCreatePseudonymKey, participantTombstone, pseudonymKeyPath, sessionPseudonym } from './pseudonym';

describe('pseudonyms', () => {
  it('creates a private key once and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-key-'));
    const a = loadOrCreatePseudonymKey(dir);
    const b = loadOrCreatePseudonymKey(dir);
    expect(a.equals(b)).toBe(true);
    expect(a.length).toBe(32);
    expect(statSync(pseudonymKeyPath(dir)).mode & 0o777).toBe(0o600);
    expect(readFileSync(pseudonymKeyPath(dir), 'utf8').trim()).toBe(a.toString('hex'));
  });

  it('is stable per key, differs across keys and never contains the input', () => {
    const k1 = loadOrCreatePseudonymKey(mkdtempSync(join(tmpdir(), 'tandem-key-')));
    const k2 = loadOrCreatePseudonymKey(mkdtempSync(join(tmpdir(), 'tandem-key-')));
    const p = sessionPseudonym(k1, 'sess_abc123');
    expect(p).toMatch(/^p[0-9a-f]{20}$/);
    expect(sessionPseudonym(k1, 'sess_abc123')).toBe(p);
    expect(sessionPseudonym(k2, 'sess_abc123')).not.toBe(p);
    expect(sessionPseudonym(k1, 'sess_abc124')).not.toBe(p);
    expect(p).not.toContain('abc123');
  });

  it('separates tombstones from session pseudonyms and by study', () => {
    const key = loadOrCreatePseudonymKey(mkdtempSync(join(tmpdir(), 'tandem-key-')));
    const t = participantTombstone(key, 'study1', 'PID1');
    expect(t).toMatch(/^[0-9a-f]{64}$/);
    expect(participantTombstone(key, 'study1', ' PID1 ')).toBe(t);
    expect(participantTombstone(key, 'study2', 'PID1')).not.toBe(t);
    expect(sessionPseudonym(key, 'PID1').slice(1)).not.toBe(t.slice(0, 20));
  });

  it('refuses a corrupted key file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-key-'));
    loadOrCreatePseudonymKey(dir);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(pseudonymKeyPath(dir), 'not-a-key');
    expect(() => loadOrCreatePseudonymKey(dir)).toThrow(/64 hex characters/);
  });
});
