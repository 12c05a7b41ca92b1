/**
 * npm run bench:teamwork — wall time of a full teamwork evaluation against a local OpenAI-compatible
 * server that answers every call in 100 ms: the example suite × 3 arms × 3 seeds × 2 models, at
 * concurrency 16, every seat (subject, both judges) going over HTTP through the real `openai` client and
 * the reply cache. Goal: < 60 s. Also prints the platform's CPU per model call (the fake server runs in a
 * child process, so its CPU is not counted) and the time of a rerun served entirely from the cache.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runSuite } from '../research/teamwork/runner/runSuite';
import { startScriptedServer, subjectRound } from '../tests/support/teamworkTestBed';
import { loadTaskDir } from '../research/teamwork/tasks/loadTasks';

const LATENCY_MS = 100;
const CONCURRENCY = 16;
const SEEDS = 3;
const MODELS = ['bench-model-a', 'bench-model-b'];

if (process.argv[2] === '--serve') {
  // Child: the fake endpoint. The subject asks once, then answers; judges answer with a label.
  const fake = await startScriptedServer(
    { judge: () => 'other', subject: (r) => (subjectRound(r) < 2 ? 'Before we decide: any closures, alerts or constraints I should know about?' : 'Here is my decision.\nFINAL: route 12') },
    { delayMs: LATENCY_MS },
  );
  process.stdout.write(`${fake.url} \n`);
  setInterval(() => process.stdout.write(`requests ${fake.requests.length}\n`), 200);
} else {
  const server = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout! });
  let requests = 0;
  const url = await new Promise<string>((resolve) => lines.once('line', (l) => resolve(l.trim())));
  lines.on('line', (l) => {
    const m = /^requests (\d+)/.exec(l);
    if (m) requests = Number(m[1]);
  });
  const tasks = loadTaskDir(new URL('../teamwork/tasks/suite', import.meta.url).pathname);
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
  console.log(`wall time: ${wall.toFixed(1)} s (goal < 60 s) ${wall < 60 ? 'OK' : 'OVER'}`);
  console.log(`model calls: ${calls} (server saw ${requests}); ${(calls / wall).toFixed(0)} calls/s`);
  console.log(`platform CPU: ${cpuMs.toFixed(0)} ms total, ${(cpuMs / calls).toFixed(2)} ms per model call`);
  console.log(`rerun from the cache: ${rerun.toFixed(2)} s, ${rerunCalls} calls`);
  server.kill();
  rmSync(dir, { recursive: true, force: true });
}
