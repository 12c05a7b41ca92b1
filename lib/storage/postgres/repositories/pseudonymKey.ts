import type { PseudonymKeyRepo } from '../../contract/store';
import type { Runner } from '../connection';

/** The pseudonym key's fingerprint row (contract/pseudonymKey.ts). */
export class PgPseudonymKey implements PseudonymKeyRepo {
  constructor(private readonly runner: Runner) {}

  async fingerprint(): Promise<string | undefined> {
    return (await this.runner.one<{ fingerprint: string }>('SELECT fingerprint FROM pseudonym_key WHERE id = 1'))?.fingerprint;
  }

  async recordIfAbsent(fingerprint: string, now: number): Promise<string> {
    // One statement: the row inserted now, or the one a racing first use inserted (ON CONFLICT returns nothing then).
    const row = await this.runner.one<{ fingerprint: string }>(
      `WITH inserted AS (
         INSERT INTO pseudonym_key (id, fingerprint, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING RETURNING fingerprint
       )
       SELECT fingerprint FROM inserted UNION ALL SELECT fingerprint FROM pseudonym_key WHERE id = 1 LIMIT 1`,
      [fingerprint, now],
    );
    return row!.fingerprint;
  }
}
