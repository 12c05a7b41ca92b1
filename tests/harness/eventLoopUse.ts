/**
 * Event-loop utilisation of this process (share of time the loop was busy), for the load benchmark's server and
 * relay children: over the whole run and over its busiest 10 s. At 1.00 the loop is saturated and every event
 * (a participant's message too) waits for a whole turn of it.
 */
import { performance } from 'node:perf_hooks';

export interface EventLoopUse {
  whole: number;
  busiest10s: number;
}

/** Starts sampling once a second; the result reads the figures so far and stops the sampling. */
export function startEventLoopUse(): () => EventLoopUse {
  const start = performance.eventLoopUtilization();
  const perSecond: number[] = [];
  let last = start;
  const sampler = setInterval(() => {
    const now = performance.eventLoopUtilization();
    perSecond.push(performance.eventLoopUtilization(now, last).utilization);
    last = now;
  }, 1_000);
  sampler.unref();
  return () => {
    clearInterval(sampler);
    return { whole: performance.eventLoopUtilization(start).utilization, busiest10s: busiestMean(perSecond, 10) };
  };
}

/** The highest mean over `window` consecutive samples (all of them when there are fewer). */
function busiestMean(samples: number[], window: number): number {
  if (samples.length === 0) return 0;
  const w = Math.min(window, samples.length);
  let sum = samples.slice(0, w).reduce((a, b) => a + b, 0);
  let best = sum;
  for (let i = w; i < samples.length; i++) {
    sum += samples[i]! - samples[i - w]!;
    best = Math.max(best, sum);
  }
  return best / w;
}
