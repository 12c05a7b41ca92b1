import { describe, expect, it } from 'vitest';
import { DEFAULT_STORAGE_POLICY, storagePolicyFromEnv } from './storagePolicy';

describe('storage policy from the environment', () => {
  it('defaults to 20 MB per session and one draft event per 5 s', () => {
    expect(storagePolicyFromEnv({})).toEqual({ sessionBudgetBytes: 20 * 1024 * 1024, draftEventIntervalMs: 5_000 });
    expect(storagePolicyFromEnv({ SESSION_STORAGE_BUDGET_MB: ' ' })).toEqual(DEFAULT_STORAGE_POLICY);
  });

  it('reads SESSION_STORAGE_BUDGET_MB and DRAFT_EVENT_INTERVAL_SECONDS (0 records every save)', () => {
    expect(storagePolicyFromEnv({ SESSION_STORAGE_BUDGET_MB: '2.5', DRAFT_EVENT_INTERVAL_SECONDS: '0' })).toEqual({
      sessionBudgetBytes: 2.5 * 1024 * 1024,
      draftEventIntervalMs: 0,
    });
  });

  it('refuses a value that is not a number in range, naming the variable and the value', () => {
    expect(() => storagePolicyFromEnv({ SESSION_STORAGE_BUDGET_MB: '20MB' })).toThrow('SESSION_STORAGE_BUDGET_MB must be a number from 0.01 to 100000, got "20MB"');
    expect(() => storagePolicyFromEnv({ SESSION_STORAGE_BUDGET_MB: '0' })).toThrow(/SESSION_STORAGE_BUDGET_MB/);
    expect(() => storagePolicyFromEnv({ DRAFT_EVENT_INTERVAL_SECONDS: '-1' })).toThrow('DRAFT_EVENT_INTERVAL_SECONDS must be a number from 0 to 3600, got "-1"');
  });
});
