import crypto from 'node:crypto';
import os from 'node:os';
import { z } from 'zod';

/**
 * This process's name in a cluster. Reply leases, periodic-job locks, /healthz and log lines carry it, so two
 * nodes (or a node and its own restart) are never mistaken for each other: without TANDEM_NODE_ID the name ends
 * in a random part that a restart changes. Deploy units set TANDEM_NODE_ID to a stable, readable name.
 */
const NodeId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'TANDEM_NODE_ID: 1–64 letters, digits or . _ : -');

export function nodeIdFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.TANDEM_NODE_ID;
  if (given !== undefined && given !== '') {
    const parsed = NodeId.safeParse(given);
    if (!parsed.success) throw new Error(`${parsed.error.issues[0]?.message ?? 'TANDEM_NODE_ID is invalid'} (got "${given}")`);
    return parsed.data;
  }
  const generated = `${os.hostname().slice(0, 40)}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  generatedNodeIds.add(generated);
  return generated;
}

/** Names this process made up itself (host:pid:random): they hold the host name and PID. */
const generatedNodeIds = new Set<string>();

/**
 * The node's name as unauthenticated answers (GET /healthz) show it: a name an operator gave (TANDEM_NODE_ID)
 * as is; a made-up one without its host name and PID, which would tell anyone who asks about the machine.
 */
export function publicNodeName(nodeId: string): string {
  if (!generatedNodeIds.has(nodeId)) return nodeId;
  return `unnamed-${nodeId.slice(nodeId.lastIndexOf(':') + 1)}`;
}
