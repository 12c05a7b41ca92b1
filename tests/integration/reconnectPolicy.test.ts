import { describe, expect, it } from 'vitest';
import { REFUSAL_RATE_LIMITED, REFUSAL_TOO_MANY_CONNECTIONS, refusalNotice, retryDelayMs } from '../../common/reconnectPolicy';
import { MemoryStore } from 'express-rate-limit';
import pino from 'pino';
import { MAX_CONNECTIONS_PER_MINUTE, SessionConnectionGuard } from '../../server/socket/sessionBudget';
import { windowCounter } from '../../server/cluster/rateLimitStore';

describe('retryDelayMs', () => {
  it('doubles from the base up to the cap, with no jitter at the top of the range', () => {
    const top = { random: () => 0.999999 };
    expect([0, 1, 2, 3, 4, 5, 6, 10, 50].map((a) => retryDelayMs(a, top))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
  });

  it('keeps each delay between half and all of its ceiling', () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const ceiling = Math.min(30_000, 1000 * 2 ** attempt);
      expect(retryDelayMs(attempt, { random: () => 0 })).toBe(ceiling / 2);
      for (let i = 0; i < 50; i++) {
        const d = retryDelayMs(attempt);
        expect(d).toBeGreaterThanOrEqual(ceiling / 2);
        expect(d).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it('honours base and cap, and treats a negative attempt as the first', () => {
    const mid = { baseMs: 100, maxMs: 450, random: () => 0.5 };
    expect([-3, 0, 1, 2, 3].map((a) => retryDelayMs(a, mid))).toEqual([75, 75, 150, 300, 338]);
  });
});

describe('refusalNotice', () => {
  it('names what to do for each refusal the server sends', () => {
    expect(refusalNotice(REFUSAL_TOO_MANY_CONNECTIONS)).toMatch(/too many tabs/);
    expect(refusalNotice(REFUSAL_RATE_LIMITED)).toMatch(/trying again/);
    expect(refusalNotice('something new')).toMatch(/trying again/);
  });

  it('matches the messages the server really sends (server/socket/sessionBudget.ts)', async () => {
    let open = 0;
    const store = new MemoryStore();
    const guard = new SessionConnectionGuard(async () => open, windowCounter(store, MAX_CONNECTIONS_PER_MINUTE, 60_000, pino({ level: 'silent' })));
    for (let i = 0; i < MAX_CONNECTIONS_PER_MINUTE; i++) expect((await guard.admit('s')).refused).toBeNull();
    expect((await guard.admit('s')).refused).toBe(REFUSAL_RATE_LIMITED);
    open = 1000;
    expect((await guard.admit('t')).refused).toBe(REFUSAL_TOO_MANY_CONNECTIONS);
    store.shutdown();
  });
});
