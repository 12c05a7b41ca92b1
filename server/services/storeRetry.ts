import { isStoreUnavailable } from '../../lib/storage';
import type { ServiceContext } from './serviceContext';

/**
 * How long a read the participant is waiting for is retried while the store is briefly unavailable (a
 * PostgreSQL restart or failover takes a few seconds), before the caller's error path takes over.
 */
export const READ_RETRY_BUDGET_MS = 15_000;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 1_000;

/** fn's value and how long it waited for the store (0 when the first try answered). */
export interface Retried<T> {
  value: T;
  waitedMs: number;
}

/**
 * Runs fn, and again with backoff (100 ms doubling to 1 s) while it fails with StoreUnavailableError, for at
 * most `budgetMs`; any other error, or the outage outlasting the budget, is thrown. For reads and idempotent
 * writes only: a retried call must not do twice what one attempt did.
 */
export async function retryWhileUnavailable<T>(
  ctx: Pick<ServiceContext, 'log'>,
  what: string,
  fn: () => Promise<T>,
  budgetMs = READ_RETRY_BUDGET_MS,
  context: Record<string, unknown> = {},
): Promise<Retried<T>> {
  const started = performance.now();
  for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    try {
      const value = await fn();
      return { value, waitedMs: Math.round(performance.now() - started) };
    } catch (err) {
      if (!isStoreUnavailable(err) || performance.now() - started + delay > budgetMs) throw err;
      ctx.log.warn({ ...context, what, retryInMs: delay }, 'store unavailable; trying again shortly');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
