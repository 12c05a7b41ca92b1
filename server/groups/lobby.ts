/**
 * The waiting room. Every decision that seats people (a join that fills a group, a timeout) runs in one store
 * transaction holding the lobby's lock (GroupsRepo.lockLobby), so on a cluster exactly one node decides at a time and
 * two nodes never seat one person twice or fill one seat twice (the schema refuses both as well). Timers are the
 * server's: each entry has a deadline in the store and the sweep (runtime.ts) acts on those that fall due.
 */
import crypto from 'node:crypto';
import { memberDisplayName, SCREENING_SURVEY_ID, type GroupConfig } from '../../common/group';
import { lobbyReleaseCode } from '../../common/study';
import type { GroupView } from '../../common/groupEvents';
import type { LobbyEntryRow, StoreRepositories, StoreTx } from '../../lib/storage';
import { endSession } from '../services/lifecycle';
import { recordPendingDraft } from '../services/pendingDraft';
import { loadSession, ServiceError, type ServiceContext, type SessionContext } from '../services/serviceContext';
import type { GroupContext } from './groupContext';
import { hasSeatFor, lobbyKey, pickGroup } from './matching';
import { takeScreeningAnswers } from './screening';
import { groupViewFor, viewOf } from './views';

interface Formed {
  groupId: string;
  lobbyKey: string;
  sessionIds: string[];
}

/** The person's value of the quota key: a URL parameter of their link or one of their (screening) answers. */
async function quotaValueOf(db: StoreRepositories, s: SessionContext, config: GroupConfig): Promise<string | null> {
  if (config.form_by === 'arrival') return null;
  const { source, key } = config.form_by.quota;
  if (source === 'url_param') return (await db.identities.get(s.session.id))?.urlParams[key] ?? null;
  const answer = (await db.surveyAnswers.listForSession(s.session.id)).find((a) => a.surveyId === SCREENING_SURVEY_ID && a.itemId === key);
  return answer ? (answer.valueText ?? (answer.valueNum === null ? null : String(answer.valueNum))) : null;
}

/** Seats the picked people (and the condition's agents) in a new group, inside the lobby's locked transaction. */
async function formGroup(tx: StoreTx, s: SessionContext, picked: readonly LobbyEntryRow[], now: number): Promise<Formed> {
  const groupId = crypto.randomUUID();
  const agents = s.condition.agents ?? [];
  await tx.groups.createGroup({
    id: groupId,
    studyId: s.study.id,
    conditionId: s.condition.id,
    taskId: s.task.id,
    sizeAtStart: picked.length,
    agents: agents.map((a) => a.name),
    formedAt: now,
  });
  let seat = 0;
  for (const e of picked)
    await tx.groups.addMember({ groupId, seat: ++seat, kind: 'participant', sessionId: e.sessionId, displayName: memberDisplayName(seat), status: 'present', joinedAt: now });
  for (const a of agents) await tx.groups.addMember({ groupId, seat: ++seat, kind: 'agent', sessionId: null, displayName: a.name, status: 'present', joinedAt: now });
  const ids = picked.map((e) => e.sessionId);
  if ((await tx.groups.settleLobby(ids, 'grouped', now, groupId)) !== ids.length) throw new Error('a picked lobby entry was settled meanwhile');
  for (const e of picked)
    await tx.groups.appendEvent({ studyId: s.study.id, groupId, sessionId: e.sessionId, type: 'grouped', serverTs: now, payload: { wait_ms: now - e.joinedAt, seat: ids.indexOf(e.sessionId) + 1 } });
  return { groupId, lobbyKey: lobbyKey({ studyId: s.study.id, conditionId: s.condition.id, taskId: s.task.id }), sessionIds: ids };
}

/**
 * Settles the entries released and ends each session still active as timed_out with the lobby's code (a pending
 * draft recorded first, as at the time limit), inside the lobby's locked transaction.
 */
async function release(ctx: ServiceContext, tx: StoreTx, entries: readonly LobbyEntryRow[], now: number, reason: 'lobby_timeout' | 'no_seat'): Promise<string[]> {
  const ids = entries.map((e) => e.sessionId);
  await tx.groups.settleLobby(ids, 'released', now, null);
  for (const e of entries) {
    await tx.groups.appendEvent({ studyId: e.studyId, groupId: null, sessionId: e.sessionId, type: 'released', serverTs: now, payload: { wait_ms: now - e.joinedAt, reason } });
    const s = await loadSession(ctx, e.sessionId, tx, true);
    if (s.session.status !== 'active') continue;
    if (s.session.step === 'workspace') await recordPendingDraft(tx, e.sessionId, now);
    await endSession(tx, s, 'timed_out', now, { release: { code: lobbyReleaseCode(s.study.completion), reason } });
  }
  return ids;
}

export class GroupLobby {
  constructor(private readonly g: GroupContext) {}

  /**
   * Enters the lobby (again: the same entry; several tabs count once); seats a full group at once. `answers`: the
   * screening answers, stored (final) in the join's transaction before the quota reads them (screening.ts).
   */
  async join(sessionId: string, answers?: Readonly<Record<string, string>>): Promise<GroupView> {
    const { ctx } = this.g;
    const s = await loadSession(ctx, sessionId);
    const config = s.condition.group;
    if (!config) throw new ServiceError('wrong_step', 'group:lobby:join: this session is not in a group condition');
    if (s.session.status !== 'active') throw new ServiceError('session_over', 'group:lobby:join: the session has ended');
    if (s.session.consentedAt === null || (s.session.step !== 'instructions' && s.session.step !== 'workspace'))
      throw new ServiceError('wrong_step', 'group:lobby:join: the lobby opens after consent');
    const key = lobbyKey({ studyId: s.study.id, conditionId: s.condition.id, taskId: s.task.id });
    const now = ctx.now();
    const { formed, released } = await ctx.store.transaction(async (tx) => {
      await tx.groups.lockLobby(key);
      // A session already in the lobby (or past it) joins again without answers: its stored ones stand.
      if (answers !== undefined || !(await tx.groups.getLobbyEntry(sessionId))) await takeScreeningAnswers(tx, s, config, answers, now);
      const quotaValue = await quotaValueOf(tx, s, config);
      const { entry, created } = await tx.groups.joinLobby({
        sessionId,
        studyId: s.study.id,
        conditionId: s.condition.id,
        taskId: s.task.id,
        quotaValue,
        joinedAt: now,
        deadlineAt: now + config.lobby.timeout_seconds * 1000,
      });
      if (created) await tx.groups.appendEvent({ studyId: s.study.id, groupId: null, sessionId, type: 'lobby_joined', serverTs: now, payload: quotaValue === null ? {} : { quota_value: quotaValue } });
      if (entry.outcome !== null) return { formed: null, released: false };
      if (!hasSeatFor(config, quotaValue)) return { formed: null, released: (await release(ctx, tx, [entry], now, 'no_seat')).length > 0 };
      const picked = pickGroup(await tx.groups.listWaiting(s.study.id, s.condition.id, s.task.id), config, true);
      return { formed: picked ? await formGroup(tx, s, picked, now) : null, released: false };
    });
    if (formed) await this.announce(formed);
    else if (!released) this.g.push.joinLobbyRoom(sessionId, key);
    await this.pushCount(key, s);
    return groupViewFor(this.g, sessionId);
  }

  /** Leaves the lobby before a group forms (closing the page does not: the timeout releases). */
  async leave(sessionId: string): Promise<GroupView> {
    const s = await loadSession(this.g.ctx, sessionId);
    const entry = await this.g.ctx.store.groups.getLobbyEntry(sessionId);
    if (entry && entry.outcome === null) {
      const now = this.g.ctx.now();
      await this.g.ctx.store.transaction(async (tx) => {
        await tx.groups.lockLobby(lobbyKey(entry));
        if ((await tx.groups.settleLobby([sessionId], 'left', now, null)) === 1)
          await tx.groups.appendEvent({ studyId: entry.studyId, groupId: null, sessionId, type: 'left', serverTs: now, payload: { wait_ms: now - entry.joinedAt } });
      });
      this.g.push.leaveLobbyRoom(sessionId, lobbyKey(entry));
      await this.pushCount(lobbyKey(entry), s);
    }
    return viewOf(this.g, s, this.g.ctx.store);
  }

  /** Acts on every lobby entry whose deadline has passed: start smaller, or release with the lobby_timeout code. */
  async sweep(): Promise<void> {
    const { ctx } = this.g;
    const now = ctx.now();
    const due = await ctx.store.groups.listDueLobby(now);
    const keys = new Map<string, LobbyEntryRow>();
    for (const e of due) if (!keys.has(lobbyKey(e))) keys.set(lobbyKey(e), e);
    for (const [key, first] of keys) {
      const s = await loadSession(ctx, first.sessionId);
      const config = s.condition.group;
      if (!config) continue;
      const outcome = await ctx.store.transaction(async (tx) => {
        await tx.groups.lockLobby(key);
        const waiting = await tx.groups.listWaiting(first.studyId, first.conditionId, first.taskId);
        const dueNow = waiting.filter((e) => e.deadlineAt <= now);
        if (dueNow.length === 0) return { formed: null, released: [] as string[] };
        const picked = config.lobby.on_timeout === 'start_smaller' ? pickGroup(waiting, config, false) : null;
        const formed = picked ? await formGroup(tx, s, picked, now) : null;
        const seated = new Set(formed?.sessionIds ?? []);
        return { formed, released: await release(ctx, tx, dueNow.filter((e) => !seated.has(e.sessionId)), now, 'lobby_timeout') };
      });
      if (outcome.formed) await this.announce(outcome.formed);
      for (const id of outcome.released) {
        this.g.push.leaveLobbyRoom(id, key);
        this.g.push.toSession(id, 'group:view', await groupViewFor(this.g, id));
      }
      await this.pushCount(key, s);
    }
  }

  /** Moves the new group's sockets into its room and gives each member the room's view. */
  private async announce(formed: Formed): Promise<void> {
    for (const id of formed.sessionIds) {
      this.g.push.leaveLobbyRoom(id, formed.lobbyKey);
      this.g.push.joinGroupRoom(id, formed.groupId);
      this.g.push.toSession(id, 'group:view', await groupViewFor(this.g, id));
    }
  }

  private async pushCount(key: string, s: SessionContext): Promise<void> {
    const waiting = await this.g.ctx.store.groups.listWaiting(s.study.id, s.condition.id, s.task.id);
    this.g.push.toLobby(key, 'group:lobby', { waiting: waiting.length });
  }
}
