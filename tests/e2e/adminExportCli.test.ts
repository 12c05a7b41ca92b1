import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../lib/storage';
import { createTestStoreTarget, STORE_ENGINES, type TestStoreTarget } from '../support/testStores';
import { seedSession, seedStudyRow } from '../support/seedStudy';
import { nodeArgsFor } from '../support/testEntries';

const run = promisify(execFile);

/** Runs a CLI on the store: DATA_DIR, plus DATABASE_URL for a PostgreSQL target. */
async function cli(script: string, args: string[], target: string | TestStoreTarget): Promise<{ code: number; stdout: string; stderr: string }> {
  const { dataDir, databaseUrl } = typeof target === 'string' ? { dataDir: target, databaseUrl: undefined } : target;
  const { DATABASE_URL: _inherited, ...env } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, [...nodeArgsFor(script), ...args], { env: { ...env, DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const ALICE = { pid: 'aa11bb22cc33dd44ee55ff66', email: 'alice.w@example.com', phone: '555-867-5309' };
const BOB = { pid: 'bb99cc88dd77ee66ff55aa44' };
const PNG = Buffer.from('89504e470d0a1a0a', 'hex');

async function seed(target: TestStoreTarget) {
  const { dataDir } = target;
  const store = await openStore(target);
  await seedStudyRow(store, 'demo');
  const alice = await seedSession(store, dataDir, 'demo', {
    platformUserId: ALICE.pid,
    messages: [
      { role: 'user', text: `I'm ${ALICE.pid}; write to ${ALICE.email} or ring ${ALICE.phone}` },
      { role: 'assistant', text: 'Noted.' },
    ],
    artifact: { plan: 'Alice plan' },
    image: { fileName: 'a.png', bytes: PNG },
    likert: { usefulness: 5 },
  });
  const bob = await seedSession(store, dataDir, 'demo', {
    platformUserId: BOB.pid,
    taskId: 'travel',
    messages: [{ role: 'user', text: 'Plan Porto' }, { role: 'assistant', text: 'Day 1: Ribeira.' }],
    artifact: { plan: 'Bob plan' },
    likert: { usefulness: 3 },
  });
  await store.close();
  return { alice, bob };
}

function everyFile(dir: string): string {
  return readdirSync(dir)
    .filter((f) => /\.(csv|jsonl|json|md)$/.test(f))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

describe.each(STORE_ENGINES)('export and withdraw command lines (%s)', (engine) => {
  it('exports, withdraws a participant, and leaves them out of every later export', async () => {
    const target = await createTestStoreTarget(engine, 'cli');
    const { dataDir } = target;
    const { alice } = await seed(target);

    const first = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'e1'), '--include-identities'], target);
    expect(first.stderr).not.toMatch(/Error/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/2 sessions/);
    const ids1 = readFileSync(join(dataDir, 'e1', 'identities.csv'), 'utf8');
    expect(ids1).toContain(ALICE.pid);
    expect(ids1).toContain(BOB.pid);
    const science1 = everyFile(join(dataDir, 'e1')).replace(ids1, '');
    for (const v of Object.values(ALICE)) expect(science1).not.toContain(v);

    const w = await cli('cli/withdraw.ts', ['--study', 'demo', '--participant', ALICE.pid], target);
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/1 session\(s\) deleted/);
    expect(existsSync(join(dataDir, 'uploads', alice))).toBe(false);

    const store = await openStore(target);
    expect((await store.sessions.get(alice))).toBeUndefined();
    expect((await store.messages.listForSession(alice))).toEqual([]);
    expect((await store.events.count(alice))).toBe(0);
    expect((await store.withdrawals.count('demo'))).toBe(1);
    const actions = (await store.audit.list({ studyId: 'demo' })).map((e) => e.action);
    expect(actions).toEqual(['withdrawal', 'export']);
    // no personal data in the audit log or the tombstone table
    expect(JSON.stringify((await store.audit.list()))).not.toContain(ALICE.pid);
    // the same person joins again later: the tombstone keeps the new session out of exports
    await seedSession(store, dataDir, 'demo', { platformUserId: ALICE.pid, messages: [{ role: 'user', text: 'back again' }] });
    await store.close();

    const second = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'e2'), '--include-identities'], target);
    expect(second.code).toBe(0);
    const out2 = join(dataDir, 'e2');
    const all2 = everyFile(out2);
    for (const v of Object.values(ALICE)) expect(all2).not.toContain(v);
    expect(all2).not.toContain('back again');
    expect(all2).toContain(BOB.pid);
    const sessions = parse(readFileSync(join(out2, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(sessions).toHaveLength(1);
    const manifest = JSON.parse(readFileSync(join(out2, 'manifest.json'), 'utf8')) as {
      counts: { withdrawn_participants: number; sessions: number };
      audit: { byAction: Record<string, number> };
    };
    expect(manifest.counts).toMatchObject({ withdrawn_participants: 1, sessions: 1 });
    expect(manifest.audit.byAction).toMatchObject({ export: 2, withdrawal: 1 });

    // analysis of the export (when the analysis CLI exists) sees only the remaining participant
    if (existsSync('cli/analyze.ts')) {
      const analysed = await cli('cli/analyze.ts', [out2, '--out', join(dataDir, 'an')], target);
      expect(analysed.code, analysed.stderr).toBe(0);
      const productivity = parse(readFileSync(join(dataDir, 'an', 'productivity.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
      expect(productivity.map((r) => r.session_id)).toEqual(sessions.map((r) => r.session_id));
    }
  });

  it('leaves out visits that never answered the consent unless --include-unconsented, and says how many', async () => {
    const target = await createTestStoreTarget(engine, 'cli-unconsented');
    const { dataDir } = target;
    await seed(target);
    const store = await openStore(target);
    await seedSession(store, dataDir, 'demo', { platformUserId: 'bare-visit-no-consent', consented: false });
    await store.close();
    const rowsOf = (dir: string) => parse(readFileSync(join(dir, 'sessions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];

    const byDefault = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'consented')], target);
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(byDefault.stdout).toMatch(/: 2 sessions, .*; 1 visits that never answered the consent left out/);
    expect(rowsOf(join(dataDir, 'consented')).every((r) => r.consented_at !== '')).toBe(true);
    expect(JSON.parse(readFileSync(join(dataDir, 'consented', 'manifest.json'), 'utf8'))).toMatchObject({
      filters: { include_unconsented: false },
      counts: { sessions: 2, excluded_unconsented_sessions: 1 },
    });

    const all = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'all'), '--include-unconsented'], target);
    expect(all.code, all.stderr).toBe(0);
    expect(rowsOf(join(dataDir, 'all')).map((r) => r.consented_at === '').sort()).toEqual([false, false, true]);
    expect(JSON.parse(readFileSync(join(dataDir, 'all', 'manifest.json'), 'utf8'))).toMatchObject({
      filters: { include_unconsented: true },
      counts: { sessions: 3, excluded_unconsented_sessions: 0 },
    });
  });
});

describe('export and withdraw command lines', () => {
  it('rejects bad flags with a message naming the flag', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tandem-cli-'));
    await seed({ dataDir, databaseUrl: undefined });
    const noOut = await cli('cli/export.ts', ['--study', 'demo'], dataDir);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out/);
    const badStudy = await cli('cli/export.ts', ['--study', 'Bad Id!', '--out', join(dataDir, 'x')], dataDir);
    expect(badStudy.code).toBe(2);
    expect(badStudy.stderr).toMatch(/--study: must be a study id/);
    const unknown = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'x'), '--bogus'], dataDir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/bogus/);
    const missingStudy = await cli('cli/withdraw.ts', ['--study', 'nosuch', '--participant', 'x1'], dataDir);
    expect(missingStudy.code).toBe(1);
    expect(missingStudy.stderr).toMatch(/no study "nosuch"/);
    const nowhere = await cli('cli/export.ts', ['--study', 'demo', '--out', join(dataDir, 'z')], join(dataDir, 'no-such-dir'));
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/no database at .*no-such-dir/);
    expect(existsSync(join(dataDir, 'no-such-dir'))).toBe(false);
    const emptyPid = await cli('cli/withdraw.ts', ['--study', 'demo', '--participant', '  '], dataDir);
    expect(emptyPid.code).toBe(2);
    expect(emptyPid.stderr).toMatch(/--participant/);
  });
});
