/**
 * Which studies a researcher watches anywhere in the cluster, so that a node pushes a group's live changes
 * (monitor:group) only when someone will see them: a study watched on this node (a socket in its monitor room), or
 * one another node announced in the last WATCH_TTL_MS. Each node with watchers announces its studies every
 * ANNOUNCE_MS and at once on a new subscription, over socket.io's serverSideEmit (the cluster adapter); on a single
 * node only the local rooms count. Without it every streamed token of every agent would cross the adapter.
 */
import type { Namespace } from 'socket.io';
import type { Logger } from 'pino';
import { z } from 'zod';
import { isClusterAdapter } from '../cluster/clusterQueries';

const WATCHING = 'tandem:monitor-watching';
export const ANNOUNCE_MS = 3_000;
export const WATCH_TTL_MS = 10_000;
const StudyIds = z.array(z.string().min(1).max(100)).max(1000);

export class MonitorWatchers {
  private readonly remote = new Map<string, number>();
  private lastAnnounce = 0;

  constructor(
    private readonly ns: Namespace,
    private readonly roomOf: (studyId: string) => string,
    private readonly now: () => number,
    private readonly log: Logger,
  ) {
    (ns.on.bind(ns) as unknown as (event: string, listener: (ids: unknown) => void) => void)(WATCHING, (ids) => {
      const parsed = StudyIds.safeParse(ids);
      if (!parsed.success) return;
      const until = this.now() + WATCH_TTL_MS;
      for (const id of parsed.data) this.remote.set(id, until);
    });
  }

  watched(studyId: string): boolean {
    if ((this.ns.adapter.rooms.get(this.roomOf(studyId))?.size ?? 0) > 0) return true;
    const until = this.remote.get(studyId);
    if (until === undefined) return false;
    if (until >= this.now()) return true;
    this.remote.delete(studyId);
    return false;
  }

  /** Whether any study is watched, here or (recently announced) on another node. */
  any(): boolean {
    for (const room of this.ns.adapter.rooms.keys()) if (room.startsWith(this.roomOf(''))) return true;
    const at = this.now();
    for (const [id, until] of this.remote) {
      if (until >= at) return true;
      this.remote.delete(id);
    }
    return false;
  }

  /** Tells the other nodes which studies are watched here (at most every ANNOUNCE_MS unless `now`). */
  announce(studyIds: readonly string[], force = false): void {
    if (studyIds.length === 0 || !isClusterAdapter(this.ns)) return;
    const at = this.now();
    if (!force && at - this.lastAnnounce < ANNOUNCE_MS) return;
    this.lastAnnounce = at;
    // The adapter's own method: a failure to publish (Redis away) must not become an unhandled rejection.
    const adapter = this.ns.adapter as unknown as { serverSideEmit(packet: unknown[]): Promise<unknown> | void };
    Promise.resolve(adapter.serverSideEmit([WATCHING, [...studyIds]])).catch((err: unknown) => this.log.debug({ err }, 'could not announce the watched studies'));
  }
}
