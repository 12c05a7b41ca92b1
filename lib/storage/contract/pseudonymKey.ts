/**
 * The pseudonym key's fingerprint, kept in the database (migration 027) so that every node and command using
 * the database can tell whether its DATA_DIR holds the key the database's pseudonyms were made with
 * (lib/pseudonym.ts). Part of the storage contract: lib/storage/contract/store.ts re-exports everything here.
 */
export interface PseudonymKeyRepo {
  /** The recorded fingerprint, or undefined before the key's first use with this database. */
  fingerprint(): Promise<string | undefined>;
  /**
   * Records `fingerprint` unless one is recorded already (two first uses racing: the first wins); resolves
   * with the fingerprint the database holds afterwards.
   */
  recordIfAbsent(fingerprint: string, now: number): Promise<string>;
}
