import { describe, expect, it } from 'vitest';
import { eventRateLimiter } from './handlers';

describe('eventRateLimiter', () => {
  it('allows max events per window, then refuses until old ones age out', () => {
    let t = 0;
    const allow = eventRateLimiter(3, 1000, () => t);
    expect([allow(), allow(), allow(), allow()]).toEqual([true, true, true, false]);
    t = 999;
    expect(allow()).toBe(false);
    t = 1000;
    expect(allow()).toBe(true);
    expect(allow()).toBe(true);
    expect(allow()).toBe(true);
    expect(allow()).toBe(false);
  });
});
