import type { PseudonymKeyRepo } from '../../contract/store';
import { PSEUDONYM_KEY_SQL } from '../../sql/pseudonymKey';
import type { Runner } from '../connection';

/** The pseudonym key's fingerprint row (contract/pseudonymKey.ts). */
export class PgPseudonymKey implements PseudonymKeyRepo {
  constructor(private readonly runner: Runner) {}

  async fingerprint(): Promise<string | undefined> {
    return (await this.runner.one<{ fingerprint: string }>(PSEUDONYM_KEY_SQL.fingerprint.postgres))?.fingerprint;
  }

  async recordIfAbsent(fingerprint: string, now: number): Promise<string> {
    await this.runner.run(PSEUDONYM_KEY_SQL.recordIfAbsent.postgres, [fingerprint, now]);
    return (await this.fingerprint())!;
  }
}
