import crypto from 'node:crypto';
import type { JoinRequest, JoinResponse, StudyPublic } from '../../common/http';
import { assignCondition } from './assignment';
import { ServiceError, type ServiceContext } from './context';
import { identityFromParams, isMturkPreview } from './identity';
import { issueToken } from './participantTokens';
import { WithdrawalsRepository } from '../db/repositories/withdrawals';
import { loadOrCreatePseudonymKey, participantTombstone } from '../../exports/pseudonym';

/**
 * Public information about a study (landing/preview page). A draft study is not public: it answers
 * exactly like an unknown id (so neither its title and tasks nor its existence leak), and joinStudy,
 * which starts here, refuses it the same way. Pilot and live are open; closed is shown as not accepting.
 */
export function studyPublic(ctx: ServiceContext, studyId: string): StudyPublic {
  const study = ctx.config.studies.get(studyId);
  const row = ctx.store.studies.get(studyId);
  if (!study || !row || row.status === 'draft') throw new ServiceError('not_found', `no study "${studyId}"`);
  return {
    id: study.id,
    title: study.title,
    description: study.description ?? null,
    status: row.status,
    open: row.status === 'live' || row.status === 'pilot',
    timeLimitMinutes: study.time_limit_minutes,
    tasks: study.tasks.map((t) => ({ id: t.id, title: t.title })),
  };
}

/**
 * Joins a study from its link: resumes the session of a known platform id (issuing a fresh token for it),
 * or creates a session with a balanced task and condition. MTurk previews create nothing.
 * Identity and raw URL parameters go only to the identities table.
 */
export function joinStudy(ctx: ServiceContext, req: JoinRequest): JoinResponse {
  const { store } = ctx;
  const info = studyPublic(ctx, req.studyId);
  if (isMturkPreview(req.params)) return { preview: true };
  const study = ctx.config.studies.get(req.studyId)!;
  const identity = identityFromParams(req.params);

  return store.transaction((): JoinResponse => {
    const now = ctx.now();
    if (identity.userId !== null) {
      const existing = store.identities.findSessionId(study.id, identity.platform, identity.userId);
      if (existing) {
        refuseForeignResume(store.identities.get(existing)?.platformSessionId ?? null, identity.sessionId);
        store.events.append(existing, 'session.resumed', { via: 'join' }, now, null);
        return { preview: false, token: issueToken(store, existing, now), sessionId: existing, resumed: true };
      }
    }
    if (!info.open) throw new ServiceError('study_unavailable', `study "${study.id}" is not accepting participants (status ${info.status})`);
    if (identity.userId !== null && hasWithdrawn(ctx, study.id, identity.userId)) {
      // A withdrawn person's data must not be collected again under the same platform id.
      throw new ServiceError('study_unavailable', 'you have withdrawn from this study, so it cannot be started again');
    }
    const isPilot = info.status === 'pilot';
    // Pilot sessions do not count towards balance; they are assigned against the same counts.
    const taskId = assignCondition(study.tasks.map((t) => t.id), store.sessions.countByTask(study.id), ctx.rng);
    const conditionId = assignCondition(study.conditions.map((c) => c.id), store.sessions.countByCondition(study.id), ctx.rng);
    const sessionId = crypto.randomUUID();
    store.sessions.insert({ id: sessionId, studyId: study.id, taskId, conditionId, isPilot, createdAt: now });
    store.identities.insert({
      sessionId,
      studyId: study.id,
      platform: identity.platform,
      platformUserId: identity.userId,
      platformStudyId: identity.studyId,
      platformSessionId: identity.sessionId,
      urlParams: req.params,
      createdAt: now,
    });
    store.events.append(sessionId, 'session.created', { studyId: study.id, taskId, conditionId, isPilot }, now, null);
    return { preview: false, token: issueToken(store, sessionId, now), sessionId, resumed: false };
  });
}

/**
 * A platform user id (PROLIFIC_PID, workerId) is not a secret: researchers, screenshots and logs hold it.
 * When the first visit also recorded the platform's per-attempt id (Prolific SESSION_ID, MTurk
 * assignmentId: known only to the participant's own link), resuming needs that same id, so knowing
 * someone's platform id is not enough to read or write their session.
 */
function refuseForeignResume(storedPlatformSessionId: string | null, presented: string | null): void {
  if (storedPlatformSessionId === null || storedPlatformSessionId === presented) return;
  throw new ServiceError(
    'forbidden',
    'this participant already has a session in this study, started from a different study link; please reopen the link you were given',
  );
}

/** Whether this platform id withdrew from the study (matched by its tombstone, never by the stored id). */
function hasWithdrawn(ctx: ServiceContext, studyId: string, platformUserId: string): boolean {
  const tombstone = participantTombstone(loadOrCreatePseudonymKey(ctx.dataDir), studyId, platformUserId);
  return new WithdrawalsRepository(ctx.store.db).isWithdrawn(studyId, tombstone);
}
