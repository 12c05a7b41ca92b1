import type { StoreRepositories } from '../../lib/storage';
import { ServiceError, type ServiceContext } from './serviceContext';

/**
 * How much one session may write, and how often its autosaved drafts enter the trajectory (issue 15: one
 * token with 20 sockets could write megabytes per second of drafts). Configured by environment variables
 * in server/main.ts; documented in the README's configuration table and docs/data-protection.md.
 */
export interface StoragePolicy {
  /** UTF-8 bytes of events, messages and the current draft a session may hold (sessions.storageBytes). */
  sessionBudgetBytes: number;
  /**
   * At most one `artifact.draft_saved` event per session per this many ms; saves in between only update the
   * draft row in place. The latest draft is always recorded before the submission (and at a time-out).
   */
  draftEventIntervalMs: number;
}

const MB = 1024 * 1024;

export const DEFAULT_STORAGE_POLICY: StoragePolicy = { sessionBudgetBytes: 20 * MB, draftEventIntervalMs: 5_000 };

export function storagePolicyOf(ctx: Pick<ServiceContext, 'storage'>): StoragePolicy {
  return ctx.storage ?? DEFAULT_STORAGE_POLICY;
}

/**
 * SESSION_STORAGE_BUDGET_MB (default 20) and DRAFT_EVENT_INTERVAL_SECONDS (default 5; 0 records every save).
 * A value that is not a number in range throws, naming the variable (start-up stops with that line).
 */
export function storagePolicyFromEnv(env: NodeJS.ProcessEnv): StoragePolicy {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) throw new Error(`${name} must be a number from ${min} to ${max}, got "${raw}"`);
    return value;
  };
  return {
    sessionBudgetBytes: Math.round(read('SESSION_STORAGE_BUDGET_MB', DEFAULT_STORAGE_POLICY.sessionBudgetBytes / MB, 0.01, 100_000) * MB),
    draftEventIntervalMs: Math.round(read('DRAFT_EVENT_INTERVAL_SECONDS', DEFAULT_STORAGE_POLICY.draftEventIntervalMs / 1000, 0, 3600) * 1000),
  };
}

/** UTF-8 bytes of a value as the store keeps it (JSON). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

/**
 * Refuses a write that would take the session past its storage budget: `change` is how many bytes the write
 * adds (negative when it shrinks the draft). Throws ServiceError('storage_full'); inside a transaction pass
 * its tx as `db`, so the check sees the locked session's count.
 */
export async function requireStorageBudget(ctx: ServiceContext, db: StoreRepositories, sessionId: string, change: number): Promise<void> {
  const { sessionBudgetBytes } = storagePolicyOf(ctx);
  const used = await db.sessions.storageBytes(sessionId);
  if (change > 0 && used + change > sessionBudgetBytes) throw storageFull(ctx, sessionId, used, change);
}

/** The refusal of a write of `change` bytes to a session holding `used` (logged: the budget is an abuse guard). */
export function storageFull(ctx: Pick<ServiceContext, 'log' | 'storage'>, sessionId: string, used: number, change: number): ServiceError {
  const { sessionBudgetBytes } = storagePolicyOf(ctx);
  ctx.log.warn({ sessionId, used, change, budget: sessionBudgetBytes }, 'session storage budget used up; write refused');
  return new ServiceError(
    'storage_full',
    `this session's storage budget is used up (${formatMb(used)} of ${formatMb(sessionBudgetBytes)} stored); nothing more can be saved, the answer can still be submitted`,
  );
}

const formatMb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;
