import { describe, expect, it } from 'vitest';
import { isClean, formatReport } from '../harness/checkLog';
import { runFaultScenario } from '../harness/faultRun';

// 20% of provider calls fail (429, 500, hang past the timeout, stream cut mid-reply). With the
// platform's own retry turned off (1 attempt) every fault reaches a participant as chat:error.
describe('provider faults (small run)', () => {
  it('every turn ends in a complete reply or a visible, retried error; no session stuck', async () => {
    const r = await runFaultScenario({ studyId: 'travel-planning', participants: 10, turns: 3, faultRate: 0.2, seed: 7, providerMaxAttempts: 1, providerTimeoutMs: 1_000 });
    const injected = Object.values(r.faults).reduce((a, b) => a + b, 0);
    expect(injected).toBeGreaterThan(0);
    expect(r.chatErrorsSeen).toBeGreaterThan(0);
    expect(r.errorsNotRetried).toBe(0);
    expect(r.simulation.errorSamples).toEqual([]);
    expect(r.simulation.completed).toBe(10);
    expect(r.simulation.turnsFailed).toBe(0);
    expect(r.simulation.streamMismatches).toBe(0);
    expect(isClean(r.check), formatReport(r.check)).toBe(true);
    expect(r.check.acked).toBe(30);
    // Failed replies are stored as such (not dropped): error or interrupted rows exist.
    expect(r.check.errorReplies + r.check.interruptedReplies).toBeGreaterThan(0);
  });
});
