import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SilenceTimer } from './silenceTimer';

// A fake clock (timers and performance.now), so that a loaded machine cannot make a touch late.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SilenceTimer', () => {
  it('fires once, after the given silence', () => {
    const fired: number[] = [];
    new SilenceTimer(60, () => fired.push(performance.now()));
    vi.advanceTimersByTime(59);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(500);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBe(60);
  });

  it('counts the silence from the last touch, however long the touches go on', () => {
    const fired: number[] = [];
    const timer = new SilenceTimer(80, () => fired.push(performance.now()));
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(30);
      timer.touch();
    }
    // 300 ms in, never 80 ms without a touch.
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(79);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([380]);
    vi.advanceTimersByTime(1_000);
    expect(fired).toHaveLength(1);
  });

  it('never fires once cleared', () => {
    let fired = false;
    const timer = new SilenceTimer(30, () => (fired = true));
    vi.advanceTimersByTime(20);
    timer.clear();
    vi.advanceTimersByTime(1_000);
    expect(fired).toBe(false);
  });
});
