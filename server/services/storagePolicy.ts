/**
 * How much one session may write, and how often its autosaved drafts enter the trajectory (issue 15: one
 * token with 20 sockets could write megabytes per second of drafts). Configured by environment variables
 * in wiring/main.ts; documented in the README's configuration table and docs/data-protection.md.
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

export const MB = 1024 * 1024;

export const DEFAULT_STORAGE_POLICY: StoragePolicy = { sessionBudgetBytes: 20 * MB, draftEventIntervalMs: 5_000 };

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
