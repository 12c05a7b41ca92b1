import crypto from 'node:crypto';
import type { JoinRequest, JoinResponse, StudyPublic } from '../../common/http';
import { assignCondition } from './assignment';
import { ServiceError, type ServiceContext } from './context';
import { identityFromParams, isMturkPreview } from './identity';
import { issueToken } from './participantTokens';
import { loadOrCreatePseudonymKey, participantTombstone } from '../../exports/pseudonym';

/**
 * Public information about a study (landing/preview page). A draft study is not public: it answers
 * exactly like an unknown id (so neither its title and tasks nor its existence leak), and joinStudy,
 * which starts here, refuses it the same way. Pilot and live are open; closed is shown as not accepting.
 */
export async function studyPublic(ctx: ServiceContext, studyId: string): Promise<StudyPublic> {
  const study = ctx.config.studies.get(studyId);
  const row = await ctx.store.studies.get(studyId);
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
export async function joinStudy(ctx: ServiceContext, req: JoinRequest): Promise<JoinResponse> {
  const { store } = ctx;
  const info = await studyPublic(ctx, req.studyId);
  if (isMturkPreview(req.params)) return { preview: true };
  const study = ctx.config.studies.get(req.studyId)!;
  const identity = identityFromParams(req.params);

  const withdrawn = identity.userId !== null && (await hasWithdrawn(ctx, study.id, identity.userId));
  // Two first visits of one platform id racing (two tabs, two nodes): the unique index on identities
  // (study, platform, user) lets one insert; the other's transaction fails on it and is retried once,
  // and then resumes the session the first created.
  const attempt = () => store.transaction(async (tx): Promise<JoinResponse> => {
    const now = ctx.now();
    if (identity.userId !== null) {
      const existing = await tx.identities.findSessionId(study.id, identity.platform, identity.userId);
      if (existing) {
        refuseForeignResume((await tx.identities.get(existing))?.platformSessionId ?? null, identity.sessionId);
        await tx.events.append(existing, 'session.resumed', { via: 'join' }, now, null);
        return { preview: false, token: await issueToken(tx, existing, now), sessionId: existing, resumed: true };
      }
    }
    if (!info.open) throw new ServiceError('study_unavailable', `study "${study.id}" is not accepting participants (status ${info.status})`);
    if (withdrawn) {
      // A withdrawn person's data must not be collected again under the same platform id.
      throw new ServiceError('study_unavailable', 'you have withdrawn from this study, so it cannot be started again');
    }
    const isPilot = info.status === 'pilot';
    // Pilot sessions do not count towards balance; they are assigned against the same counts.
    const taskId = assignCondition(study.tasks.map((t) => t.id), await tx.sessions.countByTask(study.id), ctx.rng);
    const conditionId = assignCondition(study.conditions.map((c) => c.id), await tx.sessions.countByCondition(study.id), ctx.rng);
    const sessionId = crypto.randomUUID();
    await tx.sessions.insert({ id: sessionId, studyId: study.id, taskId, conditionId, isPilot, createdAt: now });
    await tx.identities.insert({
      sessionId,
      studyId: study.id,
      platform: identity.platform,
      platformUserId: identity.userId,
      platformStudyId: identity.studyId,
      platformSessionId: identity.sessionId,
      urlParams: req.params,
      createdAt: now,
    });
    await tx.events.append(sessionId, 'session.created', { studyId: study.id, taskId, conditionId, isPilot }, now, null);
    return { preview: false, token: await issueToken(tx, sessionId, now), sessionId, resumed: false };
  });
  try {
    return await attempt();
  } catch (err) {
    if (identity.userId === null || err instanceof ServiceError) throw err;
    // Lost the race to a concurrent first visit (unique identity): the retry resumes its session.
    const existing = await store.identities.findSessionId(study.id, identity.platform, identity.userId);
    if (!existing) throw err;
    return attempt();
  }
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
async function hasWithdrawn(ctx: ServiceContext, studyId: string, platformUserId: string): Promise<boolean> {
  const tombstone = participantTombstone(loadOrCreatePseudonymKey(ctx.dataDir), studyId, platformUserId);
  return ctx.store.withdrawals.isWithdrawn(studyId, tombstone);
}
