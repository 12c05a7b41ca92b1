/**
 * `npm run fault:provider` — 20% of provider calls fail (429, 500, hang past the timeout, stream cut
 * mid-reply). Checks that every turn ends in a complete reply or a visible chat:error the participant
 * retries, and that no session is left stuck. Runs twice: with the platform's own provider retry
 * (3 attempts, as deployed) and with 1 attempt, so every fault reaches the participant.
 * Options: --participants 30 --turns 5 --rate 0.2 --seed 42 --study travel-planning
 * Bounded: each participant gives up after 2 minutes. Loopback only.
 */
import { z } from 'zod';
import { formatReport, isClean } from '../tests/harness/checkLog';
import { runFaultScenario } from '../tests/harness/faultRun';
import { formatSummary } from '../research/simulation/latencyStats';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  participants: z.coerce.number().int().min(1).max(500).default(30),
  turns: z.coerce.number().int().min(1).max(50).default(5),
  rate: z.coerce.number().min(0).max(1).default(0.2),
  seed: z.coerce.number().int().default(42),
  study: z.string().default('travel-planning'),
});
const flags = benchFlags('fault:provider', { participants: { type: 'string' }, turns: { type: 'string' }, rate: { type: 'string' }, seed: { type: 'string' }, study: { type: 'string' } }, Flags);
let allOk = true;
for (const attempts of [3, 1]) {
  console.log(`\nfault:provider: ${flags.participants} participants × ${flags.turns} turns, ${Math.round(flags.rate * 100)}% of provider calls failing, platform provider attempts = ${attempts}`);
  const r = await runFaultScenario({
    studyId: flags.study,
    participants: flags.participants,
    turns: flags.turns,
    faultRate: flags.rate,
    seed: flags.seed,
    providerMaxAttempts: attempts,
  });
  const s = r.simulation;
  const injected = Object.values(r.faults).reduce((a, b) => a + b, 0);
  console.log(`provider calls: ${r.providerCalls}, faults injected: ${injected} (${Object.entries(r.faults).map(([k, v]) => `${k}: ${v}`).join(', ')})`);
  console.log(`participants completed: ${s.completed}/${s.participants}, errors ${s.errors}${s.errorSamples.length ? ` (${s.errorSamples.join(' | ')})` : ''}`);
  console.log(`chat:error seen by participants: ${r.chatErrorsSeen} (retryable ${r.retryableErrorsSeen}, not retried ${r.errorsNotRetried}); retries sent ${s.replyRetries}; turns failed ${s.turnsFailed}`);
  console.log(`chat ack latency: ${formatSummary(s.chatAck)}`);
  console.log(`log vs database: ${formatReport(r.check)}`);
  const ok = isClean(r.check) && s.completed === s.participants && r.errorsNotRetried === 0 && s.turnsFailed === 0;
  console.log(ok ? 'PASS' : 'FAIL');
  allOk &&= ok;
}
process.exitCode = allOk ? 0 : 1;
