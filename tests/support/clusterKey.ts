/**
 * The nodes of one test cluster share one pseudonym key, as a real cluster's nodes share DATA_DIR (docs/cluster.md):
 * a node started in a folder of its own on a database other nodes use gets a copy of this process's cluster key,
 * so the database's key fingerprint (lib/pseudonym.ts) matches on every node.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreatePseudonymKey, pseudonymKeyPath } from '../../lib/pseudonym';

let keyDir: string | undefined;

/** Puts the cluster key into `dataDir` (unless it has a key already) and returns `dataDir`. */
export function withClusterPseudonymKey(dataDir: string): string {
  keyDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-cluster-key-'));
  loadOrCreatePseudonymKey(keyDir);
  const target = pseudonymKeyPath(dataDir);
  if (fs.existsSync(target)) return dataDir;
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  fs.copyFileSync(pseudonymKeyPath(keyDir), target);
  fs.chmodSync(target, 0o600);
  return dataDir;
}
