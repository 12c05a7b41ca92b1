import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';
import type { Coordination } from './coordination';
import { PeriodicJob } from './periodic';

/** What the heartbeat reports back to the chat service about the replies it streams. */
export interface LeaseEvents {
  /** Reply ids this node streams right now (their leases are refreshed). */
  held(): string[];
  /** A Stop for this reply reached another node (it set the lease's flag). */
  stopRequested(replyId: string): void;
  /** This reply's lease is gone: another node took it over (this node looked dead) and stored the reply. */
  lost(replyId: string): void;
}

/**
 * The owner's side of reply leases: every `heartbeatMs` one statement refreshes the leases of the replies
 * this node streams and reads their stop flags. It runs on the store's interactive pool so that a queue of
 * background writes (checkpoints) cannot delay it past the lease expiry and make a live node look dead.
 */
export class ReplyLeaseKeeper extends PeriodicJob<void> {
  constructor(
    private readonly store: Store,
    private readonly coordination: Coordination,
    private readonly events: LeaseEvents,
    private readonly now: () => number,
    log: Logger,
  ) {
    super('reply lease heartbeat', coordination.heartbeatMs, undefined, log);
  }

  /** One heartbeat (runOnce; the interval calls it). */
  protected async run(): Promise<void> {
    const ids = this.events.held();
    if (ids.length === 0) return;
    const held = new Map((await this.store.replyLeases.heartbeat(this.coordination.owner, ids, this.now())).map((h) => [h.replyId, h]));
    for (const id of ids) {
      const lease = held.get(id);
      if (!lease) this.events.lost(id);
      else if (lease.stopRequested) this.events.stopRequested(id);
    }
  }
}
