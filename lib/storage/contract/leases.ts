/**
 * Store contract for reply leases (table reply_leases, migration 021): which node streams each session's
 * active reply, so that several nodes sharing one database keep "one active reply per session", recover
 * only the replies of dead nodes, and pass a Stop to the node that runs the reply (server/cluster/leases.ts).
 * Times are ms since the epoch from the nodes' clocks (keep them NTP-synced: skew must be far below the
 * lease expiry).
 */

/** A node and one run of its process: a restart with the same TANDEM_NODE_ID is a new incarnation. */
export interface LeaseOwner {
  node: string;
  incarnation: string;
}

export interface ReplyLeaseRow {
  sessionId: string;
  replyId: string;
  /** The participant message the reply answers. */
  replyTo: string;
  ownerNode: string;
  ownerIncarnation: string;
  /** When the reply started (its reply.started event's server time). */
  startedAt: number;
  heartbeatAt: number;
  /** A Stop for this reply reached a node that does not run it; the owner aborts at its next heartbeat. */
  stopRequested: boolean;
}

/** A held lease as the owner's heartbeat reports it. */
export interface HeldLease {
  replyId: string;
  stopRequested: boolean;
}

export interface ReplyLeasesRepo {
  /**
   * Takes the session's lease for a new reply. Call inside the transaction that appends reply.started, so
   * both commit or neither does. False when the session already has a lease (a reply is active on some
   * node): the caller rolls back and answers busy. Decided by the primary key, so of two transactions on
   * two nodes exactly one gets it (PostgreSQL: the second waits for the first to commit or roll back).
   */
  acquire(lease: Omit<ReplyLeaseRow, 'ownerNode' | 'ownerIncarnation' | 'heartbeatAt' | 'stopRequested'> & { owner: LeaseOwner }): Promise<boolean>;
  /**
   * The owner's heartbeat: sets heartbeat_at = now on those of `replyIds` that this owner still holds and
   * returns them with their stop flag. A reply missing from the answer lost its lease (taken over).
   * It never waits for another transaction: a lease locked by one (PostgreSQL) is answered as last committed
   * and refreshed at the next heartbeat.
   */
  heartbeat(owner: LeaseOwner, replyIds: readonly string[], now: number): Promise<HeldLease[]>;
  /** Sets the stop flag of the session's lease (only if it is for `replyId`, when given). Returns the lease's reply id, or null. */
  requestStop(sessionId: string, replyId?: string): Promise<string | null>;
  /**
   * Gives the reply's lease to `owner` (heartbeat_at = now, stop flag cleared): a node resuming a reply that waits
   * for a researcher after its own previous incarnation or a dead node held it. Call inside a transaction, after
   * getForUpdate showed the lease may be taken over. False when the reply has no lease.
   */
  transfer(replyId: string, owner: LeaseOwner, now: number): Promise<boolean>;
  /** Deletes the reply's lease (inside the transaction that stores the reply's outcome). True when there was one. */
  release(replyId: string): Promise<boolean>;
  getBySession(sessionId: string): Promise<ReplyLeaseRow | undefined>;
  /** The reply's lease; inside a transaction on PostgreSQL also locks it until commit (takeover decides on it). */
  getForUpdate(replyId: string): Promise<ReplyLeaseRow | undefined>;
  /** Leases with heartbeat_at ≤ staleBefore, or held by `owner.node` in an incarnation other than `owner`'s. Oldest first. */
  listTakeoverCandidates(staleBefore: number, owner: LeaseOwner): Promise<ReplyLeaseRow[]>;
  /** Every lease (start-up recovery, monitoring, tests). */
  list(): Promise<ReplyLeaseRow[]>;
}
