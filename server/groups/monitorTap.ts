/**
 * The researcher monitor's view of this node's group pushes: what the runtime sends to a room, a lobby or a member
 * becomes a MonitorGroupPush for the group's study, handed to the listeners the researcher side registered
 * (server/admin/monitor.ts sends it to the study's monitors on every node). A change originates on one node, so
 * each push is made once. With no listener that wants pushes (a participant-only server, or nobody watching any
 * study anywhere) nothing is looked up.
 */
import type { Logger } from 'pino';
import type { GroupPush, GroupPushName } from '../../common/groupEvents';
import type { MonitorGroupMessage, MonitorGroupPush } from '../../common/groupMonitor';
import type { Store } from '../../lib/storage';

export type MonitorListener = (push: MonitorGroupPush) => void;

export class GroupMonitorTap {
  private readonly listeners = new Map<MonitorListener, () => boolean>();
  /** group id → its study (a group never changes study): looked up once per group. */
  private readonly studyOfGroup = new Map<string, Promise<string | undefined>>();
  /** Per group, the pushes waiting for that lookup, so that they leave in the order they were made. */
  private readonly chains = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  /** `active`: whether the listener wants pushes now (nobody watching: no store lookups at all). */
  listen(listener: MonitorListener, active: () => boolean = () => true): () => void {
    this.listeners.set(listener, active);
    return () => this.listeners.delete(listener);
  }

  private get wanted(): boolean {
    for (const active of this.listeners.values()) if (active()) return true;
    return false;
  }

  /** A room push (message, streamed reply, presence, document update). */
  groupPush<E extends GroupPushName>(groupId: string, event: E, payload: GroupPush<E>): void {
    if (!this.wanted) return;
    const p = payload as GroupPush<GroupPushName>;
    this.forGroup(groupId, (studyId): MonitorGroupPush | null => {
      if (event === 'group:message') {
        const m = p as GroupPush<'group:message'>;
        return { kind: 'message', studyId, groupId, message: { groupSeq: m.groupSeq, senderKind: m.senderKind, senderName: m.senderName, text: m.text, createdAt: m.createdAt } };
      }
      if (event === 'group:delta') {
        const d = p as GroupPush<'group:delta'>;
        return { kind: 'delta', studyId, groupId, replyId: d.replyId, senderName: d.senderName, text: d.text };
      }
      if (event === 'group:presence') return { kind: 'presence', studyId, groupId, members: (p as GroupPush<'group:presence'>).members };
      if (event === 'group:doc') {
        const u = p as GroupPush<'group:doc'>;
        return { kind: 'doc', studyId, groupId, field: u.field, update: u.update };
      }
      return null;
    });
  }

  /** A message as the researcher sees it (a researcher speaking as an agent says so), after the members' view of it. */
  researcherMessage(groupId: string, message: MonitorGroupMessage): void {
    if (!this.wanted) return;
    this.forGroup(groupId, (studyId) => ({ kind: 'message', studyId, groupId, message }));
  }

  /** A lobby's count changed (a join, a leave, a group formed, a release): its key starts with the study id. */
  lobbyChanged(lobbyKey: string): void {
    if (!this.wanted) return;
    const studyId = lobbyKey.split('/')[0];
    if (studyId) this.emit({ kind: 'changed', studyId });
  }

  /** A member's view changed (grouped, released, the group ended). */
  sessionChanged(sessionId: string): void {
    if (!this.wanted) return;
    this.store.sessions.get(sessionId).then(
      (s) => s && this.emit({ kind: 'changed', studyId: s.studyId }),
      (err: unknown) => this.log.debug({ err }, 'monitor: could not read a session\'s study'),
    );
  }

  private forGroup(groupId: string, make: (studyId: string) => MonitorGroupPush | null): void {
    let study = this.studyOfGroup.get(groupId);
    if (!study) {
      study = this.store.groups.getGroup(groupId).then(
        (g) => g?.studyId,
        () => undefined,
      );
      this.studyOfGroup.set(groupId, study);
      // A failed lookup is tried again next time.
      void study.then((id) => id === undefined && this.studyOfGroup.delete(groupId));
    }
    const next = (this.chains.get(groupId) ?? Promise.resolve())
      .then(() => study)
      .then((studyId) => {
        const push = studyId === undefined ? null : make(studyId);
        if (push) this.emit(push);
      });
    this.chains.set(groupId, next);
    void next.finally(() => this.chains.get(groupId) === next && this.chains.delete(groupId));
  }

  private emit(push: MonitorGroupPush): void {
    for (const [listener, active] of this.listeners) {
      if (!active()) continue;
      try {
        listener(push);
      } catch (err) {
        this.log.warn({ err }, 'a group monitor listener failed');
      }
    }
  }
}
