/**
 * Dry run of a study with simulated participants:
 *
 *   npm run simulate -- --url http://localhost:3000 --study travel-planning --participants 20 --concurrency 5 \
 *     [--script lines.txt] [--turns 3] [--think-ms 200-1000] [--log sim.jsonl] [--log-deltas] [--timeout-s 600]
 *   npm run simulate -- --url http://localhost:3000 --study group-demo --participants 6 [--dropout 0.25] [--seed S] [--group] \
 *     [--agent-participants offline|<model> [--agent-base-url http://…/v1]]
 *
 * --group drives a group study (lobby, room, shared edits, survey,
 * dropouts); --agent-participants implies it and lets an LLM play the people (research/simulation/agentParticipants.ts).
 * Every simulated session's link carries the simulated flag: in a study whose status is pilot the server records it
 * (sessions.csv `simulated`), and `npm run analyze` leaves such sessions out unless --include-simulated.
 *
 * Each participant joins over HTTP (participant_label sim-<run>-<n>), consents, reads the
 * instructions, chats (lines from --script, one message per line, `#` comments; or generated), saves
 * drafts, uploads a tiny PNG for image fields, submits, answers the survey and reaches the completion
 * code — exactly the socket events the browser client sends. Everything sent and received goes to the
 * JSONL log (each request and its ack time, chat clientIds and message ids, replies, errors, connection
 * changes; with --log-deltas also every streamed fragment with its arrival time). Prints a summary (completed, errors, p50/p99 ack latency) and exits 1 if any failed.
 * Simulated sessions are real sessions in the study's data: run it against a pilot or a scratch DATA_DIR.
 * Joins are paced by the server's join rate limit (60 per minute per IP by default); the simulator waits
 * and retries on 429, so a large dry run from one machine takes at least participants/60 minutes.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { JsonlLog } from '../research/simulation/jsonlLog';
import { newRunId, runSimulation } from '../research/simulation/simulation';
import { formatSummary } from '../research/simulation/latencyStats';
import { runGroupSimulation, studyStatus } from '../research/simulation/groupSimulation';
import { participantWriter } from '../research/simulation/agentParticipants';

const Flags = z
  .object({
    url: z.url({ message: '--url must be an http(s) URL such as http://localhost:3000' }).transform((u) => u.replace(/\/+$/, '')),
    study: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, '--study must be a study id (a-z, 0-9, "_", "-")'),
    participants: z.coerce.number({ message: '--participants must be a number' }).int('--participants must be a whole number').min(1).max(10_000),
    concurrency: z.coerce.number({ message: '--concurrency must be a number' }).int().min(1).max(2_000).optional(),
    script: z.string().min(1).optional(),
    turns: z.coerce.number().int().min(1).max(100).default(3),
    'think-ms': z
      .string()
      .regex(/^\d+(-\d+)?$/, '--think-ms must be N or MIN-MAX (milliseconds)')
      .default('200-1000'),
    log: z.string().min(1).optional(),
    'log-deltas': z.boolean().default(false),
    'timeout-s': z.coerce.number().positive().max(24 * 3600).default(600),
    /** A group study (docs/groups.md): lobby, room, shared edits, survey; --dropout share leaves the room (seeded by --seed). */
    group: z.boolean().default(false),
    dropout: z.coerce.number({ message: '--dropout must be a number' }).min(0).max(1).default(0),
    seed: z.coerce.number({ message: '--seed must be a number' }).int().default(1),
    /** An LLM plays the people of a group study: `offline` (the demo model) or a model name for the OpenAI-compatible endpoint. */
    'agent-participants': z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, '--agent-participants must be a model name (or offline)').optional(),
    'agent-base-url': z.url({ message: '--agent-base-url must be an http(s) URL such as http://localhost:8000/v1' }).optional(),
  })
  .strict();
export type SimulateFlags = z.infer<typeof Flags>;

export function parseFlags(argv: string[]): SimulateFlags {
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' },
      study: { type: 'string' },
      participants: { type: 'string' },
      concurrency: { type: 'string' },
      script: { type: 'string' },
      turns: { type: 'string' },
      'think-ms': { type: 'string' },
      log: { type: 'string' },
      'log-deltas': { type: 'boolean' },
      'timeout-s': { type: 'string' },
      group: { type: 'boolean' },
      dropout: { type: 'string' },
      seed: { type: 'string' },
      'agent-participants': { type: 'string' },
      'agent-base-url': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const parsed = Flags.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = issue.path.length ? `--${String(issue.path[0])}` : 'flags';
    const missing = issue.path.length > 0 && (values as Record<string, unknown>)[String(issue.path[0])] === undefined;
    throw new Error(missing ? `${flag} is required` : `${flag}: ${issue.message}`);
  }
  if (parsed.data['agent-base-url'] && !parsed.data['agent-participants']) throw new Error('--agent-base-url: needs --agent-participants <model>');
  return parsed.data;
}

/** Chat lines from a script file: one message per non-empty line; lines starting with # are comments. */
export function readScript(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--script ${file}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) throw new Error(`--script ${file}: no chat lines (one message per line; # starts a comment)`);
  lines.forEach((l, i) => {
    if (l.length > 4000) throw new Error(`--script ${file}: line ${i + 1} is ${l.length} characters; at most 4000`);
  });
  return lines;
}

export function generatedLines(turns: number): string[] {
  const lines = [
    'Hi! Could you help me get started on this task?',
    'That sounds good. What would you suggest as a first step?',
    'Can you give me a concrete example?',
    'Thanks. Could you summarise what we have so far?',
    'What would you change to make it better?',
  ];
  return Array.from({ length: turns }, (_, i) => lines[i % lines.length]!);
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const chatLines = flags.script ? readScript(flags.script) : generatedLines(flags.turns);
  const [minThink, maxThink] = flags['think-ms'].split('-').map(Number) as [number, number | undefined];
  const runId = newRunId();
  if (flags.group || flags['agent-participants']) return simulateGroups(flags, runId, minThink);
  const logPath = flags.log ?? `simulate-${runId}.jsonl`;
  const log = new JsonlLog(logPath);
  const concurrency = flags.concurrency ?? Math.min(flags.participants, 50);
  process.stderr.write(`simulate: run ${runId}: ${flags.participants} participants (${concurrency} at a time) against ${flags.url}, study ${flags.study}; log ${logPath}\n`);
  const summary = await runSimulation({
    baseUrl: flags.url,
    studyId: flags.study,
    participants: flags.participants,
    concurrency,
    runId,
    chatLines,
    thinkMs: { min: minThink, max: maxThink ?? minThink },
    log,
    logDeltas: flags['log-deltas'],
    sessionDeadlineMs: flags['timeout-s'] * 1000,
    rampMs: 20,
    onProgress: (done, total) => process.stderr.write(`\r  ${done}/${total} finished`),
  });
  await log.close();
  process.stderr.write('\n');
  const lines = [
    `completed:        ${summary.completed}/${summary.participants}`,
    `errors:           ${summary.errors}${summary.errorSamples.length ? ` (${summary.errorSamples.join(' | ')})` : ''}`,
    `messages acked:   ${summary.messagesAcked} (${summary.messagesPerSecond.toFixed(1)}/s over ${(summary.wallMs / 1000).toFixed(1)} s)`,
    `chat ack latency: ${formatSummary(summary.chatAck)}`,
    `reply errors:     ${summary.replyErrors} (retried ${summary.replyRetries}), turns failed ${summary.turnsFailed}`,
    `resends:          ${summary.resends}, reconnects ${summary.reconnects}`,
    `stream check:     ${summary.streamMismatches} replies whose streamed text differed from the stored reply`,
    `log:              ${logPath}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  process.exitCode = summary.completed === summary.participants && summary.streamMismatches === 0 ? 0 : 1;
}

/** --group: simulated people in a group study; prints what the room delivered and exits 1 on a lost delivery. */
async function simulateGroups(flags: SimulateFlags, runId: string, thinkMs: number): Promise<void> {
  const model = flags['agent-participants'];
  const writer = model ? participantWriter(model, { ...(flags['agent-base-url'] ? { baseUrl: flags['agent-base-url'] } : {}), seed: flags.seed }) : undefined;
  process.stderr.write(`simulate: run ${runId}: ${flags.participants} people in groups against ${flags.url}, study ${flags.study}${writer ? `, played by ${writer.label}` : ''}\n`);
  const status = await studyStatus(flags.url, flags.study);
  if (status !== null && status !== 'pilot')
    process.stderr.write(`simulate: warning: study ${flags.study} is ${status}, not pilot: its sessions are real data and are not flagged simulated (switch it to pilot, or use a scratch DATA_DIR)\n`);
  const s = await runGroupSimulation({ url: flags.url, study: flags.study, participants: flags.participants, runId, turns: flags.turns, dropout: flags.dropout, seed: flags.seed, thinkMs, timeoutMs: flags['timeout-s'] * 1000, ...(writer ? { writer } : {}) });
  const sorted = [...s.fanoutMs].sort((a, b) => a - b);
  const pct = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1) : '-');
  process.stdout.write(
    [
      `grouped:          ${s.grouped}/${s.participants} in ${s.groups} groups; released ${s.released}; dropped out ${s.droppedOut}`,
      `completed:        ${s.completed}`,
      `room messages:    ${s.messagesSent} sent; ${s.deliveriesExpected - s.deliveriesLost}/${s.deliveriesExpected} deliveries, ${s.deliveriesLost} lost`,
      `fan-out latency:  p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms`,
      `people played by: ${s.writer}${s.writerFailures ? ` (${s.writerFailures} model calls failed: the scripted line was sent)` : ''}`,
      `errors:           ${s.errors.length}${s.errors.length ? ` (${s.errors.slice(0, 3).join(' | ')})` : ''}`,
    ].join('\n') + '\n',
  );
  process.exitCode = s.deliveriesLost === 0 && s.errors.length === 0 ? 0 : 1;
}

// Run only as a script (tests import parseFlags/readScript).
if (process.argv[1] && /simulate\.ts$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    process.stderr.write(`simulate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  });
}
