/**
 * npm run bench:teamwork — wall time of a full teamwork evaluation against a local OpenAI-compatible
 * server that answers every call in 100 ms: the example suite × 3 arms × 3 seeds × 2 models, at
 * concurrency 16, every seat (subject, both judges) going over HTTP through the real `openai` client and
 * the reply cache. Goal: < 60 s. Also prints the platform's CPU per model call (the fake server runs in a
 * child process, so its CPU is not counted) and the time of a rerun served entirely from the cache.
 *
 * Flags (checked with zod; an error names the flag): --seeds 3, --models 2, --concurrency 16, --latency-ms 100,
 * --tasks teamwork/tasks/suite. A smaller setting (e.g. --seeds 1) keeps a check on a shared machine short.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { runSuite } from '../research/teamwork/runner/runSuite';
import { startScriptedServer, subjectRound } from '../tests/support/teamworkTestBed';
import { loadTaskDir } from '../research/teamwork/tasks/loadTasks';

const Flags = z.object({
  seeds: z.coerce.number().int().min(1).max(20).default(3),
  models: z.coerce.number().int().min(1).max(8).default(2),
  concurrency: z.coerce.number().int().min(1).max(256).default(16),
  latencyMs: z.coerce.number().int().min(0).max(10_000).default(100),
  tasks: z.string().min(1).default(new URL('../teamwork/tasks/suite', import.meta.url).pathname),
});
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--serve'),
  options: { seeds: { type: 'string' }, models: { type: 'string' }, concurrency: { type: 'string' }, 'latency-ms': { type: 'string' }, tasks: { type: 'string' } },
  allowPositionals: false,
});
const parsed = Flags.safeParse({ seeds: values.seeds, models: values.models, concurrency: values.concurrency, latencyMs: values['latency-ms'], tasks: values.tasks });
if (!parsed.success) {
  const issue = parsed.error.issues[0]!;
  console.error(`bench:teamwork: --${String(issue.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${issue.message}`);
  process.exit(2);
}
const { seeds: SEEDS, concurrency: CONCURRENCY, latencyMs: LATENCY_MS } = parsed.data;
const MODELS = [...Array(parsed.data.models)].map((_, i) => `bench-model-${String.fromCharCode(97 + i)}`);

if (process.argv[2] === '--serve') {
  // Child: the fake endpoint. The subject asks once, then answers; judges answer with a label.
  const fake = await startScriptedServer(
    { judge: () => 'other', subject: (r) => (subjectRound(r) < 2 ? 'Before we decide: any closures, alerts or constraints I should know about?' : 'Here is my decision.\nFINAL: route 12') },
    { delayMs: LATENCY_MS },
  );
  process.stdout.write(`${fake.url} \n`);
  setInterval(() => process.stdout.write(`requests ${fake.requests.length}\n`), 200);
} else {
  const server = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', '--latency-ms', String(LATENCY_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout! });
  let requests = 0;
  const url = await new Promise<string>((resolve) => lines.once('line', (l) => resolve(l.trim())));
  lines.on('line', (l) => {
    const m = /^requests (\d+)/.exec(l);
    if (m) requests = Number(m[1]);
  });
  const tasks = loadTaskDir(parsed.data.tasks);
  const dir = mkdtempSync(join(tmpdir(), 'bench-teamwork-'));
  const env = { OPENAI_API_KEY: 'bench', OPENAI_BASE_URL: url };
  const common = { tasks, seeds: SEEDS, concurrency: CONCURRENCY, partner: 'bench-partner', referee: 'bench-judge-a', second: 'bench-judge-b', temperature: 0.7, maxTokens: 300, env };

  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let runs = 0;
  let calls = 0;
  for (const model of MODELS) {
    const started = performance.now();
    const outcome = await runSuite({ ...common, model, outDir: join(dir, model) });
    runs += outcome.ran;
    calls += outcome.calls;
    console.log(`${model}: ${outcome.ran} runs, ${outcome.calls} calls in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const t1 = performance.now();
  let rerunCalls = 0;
  for (const model of MODELS) rerunCalls += (await runSuite({ ...common, model, outDir: join(dir, model) })).calls;
  const rerun = (performance.now() - t1) / 1000;
  await new Promise((r) => setTimeout(r, 300));

  console.log(`\n${tasks.length} tasks × 3 arms × ${SEEDS} seeds × ${MODELS.length} models = ${runs} runs, concurrency ${CONCURRENCY}, ${LATENCY_MS} ms per call`);
  console.log(`wall time: ${wall.toFixed(1)} s (goal < 60 s at the default setting) ${wall < 60 ? 'OK' : 'OVER'}`);
  console.log(`model calls: ${calls} (server saw ${requests}); ${(calls / wall).toFixed(0)} calls/s`);
  console.log(`platform CPU: ${cpuMs.toFixed(0)} ms total, ${(cpuMs / calls).toFixed(2)} ms per model call`);
  console.log(`rerun from the cache: ${rerun.toFixed(2)} s, ${rerunCalls} calls`);
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
