/**
 * Two (or more) Tandem nodes in this test process on one PostgreSQL database and one socket adapter, for the
 * cross-node transport tests. Nodes share one data folder, as a deployment shares it (pseudonym key, uploads).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { io as connect } from 'socket.io-client';
import { type RunningServer, type StartServerOptions } from '../../server/app';
import { startTandem } from '../../wiring/startTandem';
import type { ClusterOptions } from '../../server/cluster/clusterOptions';
import { createLogger } from '../../lib/logger';
import { createTestDatabaseUrl } from '../support/postgresTestDatabase';
import { withClusterPseudonymKey } from '../support/clusterKey';
import type { ParticipantClient } from '../support/integrationHarness';

export interface TestCluster {
  nodes: RunningServer[];
  databaseUrl: string;
  dataDir: string;
  /** A participant socket on node i (no automatic reconnection). */
  socket(node: number, token: string): Promise<ParticipantClient>;
  close(): Promise<void>;
}

export async function startTestCluster(
  label: string,
  cluster: ClusterOptions,
  count = 2,
  options: Partial<StartServerOptions> = {},
): Promise<TestCluster> {
  const databaseUrl = await createTestDatabaseUrl(label);
  const dataDir = withClusterPseudonymKey(fs.mkdtempSync(path.join(os.tmpdir(), `tandem-${label}-`)));
  const nodes: RunningServer[] = [];
  const sockets: ParticipantClient[] = [];
  try {
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startTandem({
          dataDir,
          databaseUrl,
          cluster,
          nodeId: `node-${String.fromCharCode(97 + i)}`,
          port: 0,
          host: '127.0.0.1',
          env: {},
          logger: createLogger('error'),
          // A reply streams for about two seconds: long enough to switch nodes in the middle of it.
          offline: { tokensPerSecond: 40, firstTokenDelayMs: 100 },
          ...options,
        }),
      );
    }
  } catch (err) {
    for (const n of nodes) await n.close();
    throw err;
  }
  return {
    nodes,
    databaseUrl,
    dataDir,
    async socket(node, token) {
      const s: ParticipantClient = connect(nodes[node]!.url, { auth: { token }, transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('connect', () => resolve());
        s.once('connect_error', (err) => reject(err));
      });
      return s;
    },
    async close() {
      for (const s of sockets) s.disconnect();
      for (const n of nodes) await n.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
