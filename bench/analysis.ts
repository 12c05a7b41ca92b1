/**
 * `npm run bench:analysis` — not a test. Generates 100,000 sessions with ~4,000,000 annotated turns,
 * runs the full analysis (load + validate + compute + productivity.csv/summary.json; report rendering
 * timed separately) in a child process, prints wall time and peak RSS, then runs the numpy/scipy twin
 * (bench/analysis_ref.py) on the same files when python3 with numpy/scipy is available, and the ratio.
 *
 * Options (env): BENCH_SESSIONS (100000), BENCH_TURNS (40 per session), BENCH_DIR (tmp), BENCH_BOOTSTRAP (1000),
 * ANALYSIS_THREADS (threads for the bootstraps, the main one included; default the machine's cores up to 4).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const root = join(here, '..');

interface Measurement {
  load_s: number;
  compute_s: number;
  write_s: number;
  report_s: number;
  total_s: number;
  /** user + system CPU seconds of the whole child process (less sensitive to a busy machine than wall time) */
  cpu_s: number;
  max_rss_mb: number;
  /** threads the bootstraps ran on (the main thread included; ANALYSIS_THREADS) */
  threads: number;
}

async function childRun(dir: string, replicates: number): Promise<void> {
  const t0 = performance.now();
  const { loadDataset } = await import('../research/analysis/input/dataset');
  const { analyzeDataset, DEFAULT_OPTIONS } = await import('../research/analysis/summary');
  const { productivityCsv } = await import('../research/analysis/output/productivityCsv');
  const { writeOutputsAtomically } = await import('../research/analysis/output/writeOutputs');
  const { renderReport } = await import('../research/analysis/report/renderReport');
  const { replicateThreads } = await import('../research/analysis/parallel/runReplicates');
  const tLoad0 = performance.now();
  const data = loadDataset(dir);
  const tLoad = performance.now();
  const analysis = analyzeDataset(data, { ...DEFAULT_OPTIONS, bootstrapReplicates: replicates });
  const tCompute = performance.now();
  const out = join(dir, 'out');
  writeOutputsAtomically(out, {
    'productivity.csv': productivityCsv(data.sessions, analysis),
    'summary.json': JSON.stringify(analysis.summary),
  });
  const tWrite = performance.now();
  const html = await renderReport(data, analysis);
  writeOutputsAtomically(out, { 'report.html': html });
  const tReport = performance.now();
  const m: Measurement = {
    load_s: (tLoad - tLoad0) / 1000,
    compute_s: (tCompute - tLoad) / 1000,
    write_s: (tWrite - tCompute) / 1000,
    report_s: (tReport - tWrite) / 1000,
    total_s: (tReport - t0) / 1000,
    cpu_s: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    max_rss_mb: process.resourceUsage().maxRSS / 1024,
    threads: replicateThreads().threads,
  };
  console.log(JSON.stringify(m));
}

function lastJson<T>(stdout: string): T {
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as T;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const replicates = Number(process.env.BENCH_BOOTSTRAP ?? 1000);
  if (args[0] === '--child') return childRun(args[1]!, replicates);

  const sessions = Number(process.env.BENCH_SESSIONS ?? 100_000);
  const turns = Number(process.env.BENCH_TURNS ?? 40);
  const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'tandem-bench-analysis-'));
  const { generateSyntheticDataset } = await import('../research/analysis/synthetic/generateDataset');
  let t = performance.now();
  const generated = existsSync(join(dir, 'sessions.csv'))
    ? null
    : generateSyntheticDataset(dir, {
        sessions,
        turnsPerSession: turns,
        tasks: Array.from({ length: 20 }, (_, i) => `task_${String(i + 1).padStart(2, '0')}`),
        likertItems: ['confidence', 'usefulness', 'satisfaction'],
        seed: 7,
        missingQuality: 0.03,
        missingLikert: 0.1,
      });
  const annotatedTurns = generated?.turns ?? readFileSync(join(dir, 'annotations.csv')).reduce((n, b) => n + (b === 10 ? 1 : 0), -1);
  console.log(`dataset ${dir}: ${sessions.toLocaleString('en')} sessions, ${annotatedTurns.toLocaleString('en')} annotated turns` +
    (generated ? ` (generated in ${((performance.now() - t) / 1000).toFixed(1)} s)` : ' (reused)'));

  t = performance.now();
  const node = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir], {
    cwd: root, encoding: 'utf8', maxBuffer: 1 << 26, env: { ...process.env, BENCH_BOOTSTRAP: String(replicates) },
  });
  const nodeWall = (performance.now() - t) / 1000;
  if (node.status !== 0) throw new Error(`analysis failed: ${node.stderr}`);
  const ts = lastJson<Measurement>(node.stdout);
  const tsAnalysis = ts.load_s + ts.compute_s + ts.write_s;
  console.log(`tandem (node ${process.version}): load ${ts.load_s.toFixed(2)} s, compute ${ts.compute_s.toFixed(2)} s, ` +
    `write csv/json ${ts.write_s.toFixed(2)} s → analysis ${tsAnalysis.toFixed(2)} s; report.html ${ts.report_s.toFixed(2)} s; ` +
    `process wall ${nodeWall.toFixed(2)} s, CPU ${ts.cpu_s.toFixed(2)} s; peak RSS ${ts.max_rss_mb.toFixed(0)} MB (bootstrap ${replicates}×, ${ts.threads} thread${ts.threads === 1 ? '' : 's'})`);
  console.log(`  goal: analysis < 10 s ${tsAnalysis < 10 ? 'OK' : 'MISSED'}, peak RSS < 1024 MB ${ts.max_rss_mb < 1024 ? 'OK' : 'MISSED'}`);

  const py = spawnSync('python3', [join(here, 'analysis_ref.py'), dir, '--bootstrap', String(replicates)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (py.error || py.status !== 0) {
    console.log(`numpy/scipy twin skipped (${py.error?.message ?? py.stderr.trim().split('\n').pop()})`);
  } else {
    const ref = lastJson<{ read_s: number; compute_s: number; total_s: number; cpu_s: number; max_rss_mb: number }>(py.stdout);
    console.log(`numpy/scipy (bench/analysis_ref.py): read ${ref.read_s.toFixed(2)} s, compute ${ref.compute_s.toFixed(2)} s → ${ref.total_s.toFixed(2)} s, ` +
      `CPU ${ref.cpu_s.toFixed(2)} s; peak RSS ${ref.max_rss_mb.toFixed(0)} MB`);
    console.log(`ratio numpy/scipy ÷ tandem: wall ${(ref.total_s / tsAnalysis).toFixed(2)}× (compute only ${(ref.compute_s / ts.compute_s).toFixed(2)}×), ` +
      `CPU ${(ref.cpu_s / ts.cpu_s).toFixed(2)}× (tandem CPU includes report.html)`);
  }
  console.log(`machine load average (1 min) at the end: ${(await import('node:os')).loadavg()[0]!.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
  if (!process.env.BENCH_DIR) rmSync(dir, { recursive: true, force: true });
}

await main();
