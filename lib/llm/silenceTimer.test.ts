import { describe, expect, it } from 'vitest';
import { SilenceTimer } from './silenceTimer';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SilenceTimer', () => {
  it('fires once, after the given silence', async () => {
    const fired: number[] = [];
    const started = performance.now();
    new SilenceTimer(60, () => fired.push(performance.now() - started));
    await sleep(200);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeGreaterThanOrEqual(59);
  });

  it('waits for a silence counted from the last touch, however long the touches go on', async () => {
    const fired: number[] = [];
    const started = performance.now();
    const timer = new SilenceTimer(80, () => fired.push(performance.now() - started));
    for (let i = 0; i < 8; i++) {
      await sleep(30);
      timer.touch();
    }
    const lastTouch = performance.now() - started;
    expect(fired).toEqual([]);
    await sleep(250);
    expect(fired).toHaveLength(1);
    expect(fired[0]! - lastTouch).toBeGreaterThanOrEqual(79);
  });

  it('never fires once cleared', async () => {
    let fired = false;
    const timer = new SilenceTimer(30, () => (fired = true));
    timer.clear();
    await sleep(100);
    expect(fired).toBe(false);
  });
});
