/**
 * Memory check for the streaming export (not a timed test):
 *
 *   npx tsx tests/harness/exportMemoryCheck.ts [--sessions 100000] [--small 10000] [--heap-cap-mb 40] [--reuse <seeded dir>]
 *
 * Seeds two synthetic studies (small and large) in a temp DATA_DIR through the Store, then exports each in
 * a fresh child process that samples heap and RSS every 20 ms. Prints the peaks and fails (exit 1) when the
 * large export's peak heap exceeds the small one's by more than the allowance: a bounded exporter's memory
 * does not grow with the number of sessions (the identity matcher, which holds the study's identity strings
 * for redaction, is the one part that grows; it is measured separately).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../lib/storage';
import { seedSession, seedStudyRow } from '../support/seedStudy';
import { nodeArgsFor } from '../support/testEntries';

const ALLOWANCE_MB = 40;

interface ChildReport {
  sessions: number;
  peakHeapMb: number;
  peakRssMb: number;
  baselineHeapMb: number;
  matcherHeapMb: number;
  seconds: number;
}

async function seed(dataDir: string, studyId: string, n: number): Promise<void> {
  const store = await openStore({ dataDir });
  await seedStudyRow(store, studyId);
  const text = 'Could you help me plan the next step? Here is what I have so far, with a few numbers: 12, 40, 7.5. '.repeat(2);
  for (let i = 0; i < n; i++) {
    await seedSession(store, dataDir, studyId, {
      platformUserId: `pid${i.toString(16).padStart(21, '0')}`,
      messages: [
        { role: 'user', text: `${text} mail me at user${i}@example.org` },
        { role: 'assistant', text: text },
        { role: 'user', text: 'thanks' },
        { role: 'assistant', text: 'You are welcome.' },
      ],
      artifact: { plan: `final plan ${i}` },
      likert: { usefulness: 1 + (i % 5), confidence: 1 + (i % 3) },
      startedAt: Date.UTC(2026, 10, 2) + i * 1000,
    });
  }
  await store.close();
}

async function child(dataDir: string, studyId: string): Promise<void> {
  const { exportStudy } = await import('../../research/exports/exportStudy');
  const { IdentityMatcher } = await import('../../research/exports/redaction');
  global.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peakHeap = baseline;
  let peakRss = process.memoryUsage().rss;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 20);
  const store = await openStore({ dataDir });
  const started = Date.now();
  const { manifest } = await exportStudy({ store, dataDir, studyId, outDir: join(dataDir, `out-${studyId}`), includePilot: false, includeIdentities: false });
  const seconds = (Date.now() - started) / 1000;
  clearInterval(timer);
  await store.close();
  // What the identity matcher alone costs for this many identities (it is the one structure that scales).
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const matcher = new IdentityMatcher();
  for (let i = 0; i < manifest.counts.sessions; i++) {
    matcher.add(`pid${i.toString(16).padStart(21, '0')}`);
    matcher.add(`ps_${i.toString(16).padStart(8, '0')}`);
  }
  global.gc?.();
  const matcherHeap = process.memoryUsage().heapUsed - before;
  if (matcher.size === 0 && manifest.counts.sessions > 0) throw new Error('matcher measurement added nothing');
  const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
  const report: ChildReport = {
    sessions: manifest.counts.sessions,
    peakHeapMb: mb(peakHeap),
    peakRssMb: mb(peakRss),
    baselineHeapMb: mb(baseline),
    matcherHeapMb: mb(matcherHeap),
    seconds,
  };
  process.stdout.write(JSON.stringify(report) + '\n');
}

function measure(dataDir: string, studyId: string, heapCapMb: number | null): ChildReport {
  const self = fileURLToPath(import.meta.url);
  const cap = heapCapMb ? [`--max-old-space-size=${heapCapMb}`] : [];
  const out = execFileSync(process.execPath, [...nodeArgsFor(self, [...cap, '--expose-gc']), '--child', dataDir, '--study', studyId], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ChildReport;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      sessions: { type: 'string', default: '100000' },
      small: { type: 'string' },
      child: { type: 'string' },
      study: { type: 'string' },
      // Reuse a DATA_DIR seeded by an earlier run (studies "small" and "large"); it is kept afterwards.
      reuse: { type: 'string' },
      // Run each export with this V8 heap limit: an unbounded exporter would crash with "heap out of memory".
      'heap-cap-mb': { type: 'string' },
    },
  });
  if (values.child) {
    await child(values.child, values.study ?? 'large');
    return 0;
  }
  const large = Number(values.sessions);
  const small = Number(values.small ?? Math.max(1, Math.round(large / 10)));
  if (!Number.isInteger(large) || large < 1 || !Number.isInteger(small) || small < 1) {
    console.error('--sessions and --small must be positive integers');
    return 2;
  }
  const dataDir = values.reuse ?? mkdtempSync(join(tmpdir(), 'tandem-export-mem-'));
  try {
    if (!values.reuse) {
      const t0 = Date.now();
      await seed(dataDir, 'small', small);
      await seed(dataDir, 'large', large);
      console.log(`seeded ${small} + ${large} sessions in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    for (const study of ['small', 'large']) rmSync(join(dataDir, `out-${study}`), { recursive: true, force: true });
    const cap = values['heap-cap-mb'] ? Number(values['heap-cap-mb']) : null;
    if (cap) console.log(`each export runs with --max-old-space-size=${cap}`);
    const a = measure(dataDir, 'small', cap);
    const b = measure(dataDir, 'large', cap);
    for (const r of [a, b])
      console.log(
        `${String(r.sessions).padStart(7)} sessions: peak heap ${r.peakHeapMb} MB (baseline ${r.baselineHeapMb} MB), peak RSS ${r.peakRssMb} MB, ` +
          `identity matcher ${r.matcherHeapMb} MB, ${r.seconds.toFixed(1)} s`,
      );
    const growth = b.peakHeapMb - a.peakHeapMb;
    console.log(`peak heap growth for ${(large / small).toFixed(0)}× the sessions: ${growth.toFixed(1)} MB (allowance ${ALLOWANCE_MB} MB)`);
    if (growth > ALLOWANCE_MB) {
      console.error('FAIL: export memory grows with the study size');
      return 1;
    }
    console.log('OK: export memory is bounded');
    return 0;
  } finally {
    if (!values.reuse) rmSync(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
