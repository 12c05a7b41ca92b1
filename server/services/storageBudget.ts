import type { StoreRepositories } from '../../lib/storage';
import { ServiceError, type ServiceContext } from './serviceContext';
import { DEFAULT_STORAGE_POLICY, MB, type StoragePolicy } from './storagePolicy';

export function storagePolicyOf(ctx: Pick<ServiceContext, 'storage'>): StoragePolicy {
  return ctx.storage ?? DEFAULT_STORAGE_POLICY;
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
