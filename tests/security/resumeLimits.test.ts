/**
 * Resume-code guessing is limited per person and for the whole server, not only per IP: with the default
 * TRUST_PROXY=loopback a loopback peer chooses its own IP through X-Forwarded-For, and the audit made 300
 * guesses from 30 spoofed addresses, none limited. Real server, SQLite store, real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join, postJson, startTestServer, type TestServer } from '../support/integrationHarness';

const WRONG = 'ZZZZ-ZZZZ';

describe('resume-code limits', () => {
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const guess = (pid: string, code: string, ip: string) =>
    postJson(`${t!.server.url}/api/join/resume`, { studyId: 'travel-planning', params: { PROLIFIC_PID: pid }, code }, { 'x-forwarded-for': ip });

  it('limits guesses at one person’s code to 10 per 15 minutes whatever X-Forwarded-For says', async () => {
    t = await startTestServer();
    const victim = await join(t, 'travel-planning', { PROLIFIC_PID: 'resume-victim' });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await guess('resume-victim', WRONG, `203.0.113.${i + 1}`)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(403));
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
    // Another person's resume is not affected.
    const other = await join(t, 'travel-planning', { PROLIFIC_PID: 'resume-other' });
    const ok = await guess('resume-other', other.resumeCode!, '198.51.100.7');
    expect(ok.status).toBe(200);
    expect(ok.body.data.sessionId).toBe(other.sessionId);
    expect(victim.sessionId).not.toBe(other.sessionId);
  });

  it('caps refused attempts of all clients together at 100 per 15 minutes', async () => {
    t = await startTestServer();
    const statuses: number[] = [];
    // Each guess from its own address at its own platform id: neither per-IP nor per-person limit applies.
    for (let i = 0; i < 105; i++) statuses.push((await guess(`spray-${i}`, WRONG, `10.9.${Math.floor(i / 200)}.${i % 200}`)).status);
    expect(statuses.slice(0, 100).every((s) => s === 403)).toBe(true);
    expect(statuses.slice(100)).toEqual(Array(5).fill(429));
  });
});
