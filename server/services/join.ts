import crypto from 'node:crypto';
import type { JoinedSession, JoinRequest, JoinResponse, ResumeRequest, StudyPublic } from '../../common/http';
import type { StoreRepositories } from '../../lib/storage';
import { assignCondition, balanceCountsUnconsentedSince } from './assignment';
import { ServiceError, type ServiceContext } from './serviceContext';
import { identityFromParams, isMturkPreview } from './identity';
import { issueToken } from './participantTokens';
import { displayResumeCode, hashResumeCode, newResumeCode, normalizeResumeCode, RESUME_CODE_LENGTH, resumeCodeMatches } from './resumeCode';
import { participantTombstone } from '../../lib/pseudonym';
import { checkStoppingRuleAtJoin } from '../../lib/preregistration';
import { SIMULATED_PARAM } from '../../common/simulatedParticipant';

/**
 * Public information about a study (landing/preview page). A draft study is not public: it answers
 * exactly like an unknown id (so neither its title and tasks nor its existence leak), and joinStudy
 * refuses new sessions the same way (sessions already started in it continue, see joinStudy).
 * Pilot and live are open; closed is shown as not accepting.
 */
export async function studyPublic(ctx: ServiceContext, studyId: string): Promise<StudyPublic> {
  const info = await studyInfo(ctx, studyId);
  if (info.status === 'draft') throw notFound(studyId);
  return info;
}

/** The start of a per-visit id made by the platform for a further session of a link without one (joinStudy). */
export const GENERATED_VISIT_PREFIX = 'tandem-visit:';

const notFound = (studyId: string) => new ServiceError('not_found', `no study "${studyId}"`);
/** The counts of an option that is the only one: nothing to balance. */
const NO_COUNTS: ReadonlyMap<string, number> = new Map();

async function studyInfo(ctx: ServiceContext, studyId: string): Promise<StudyPublic> {
  const study = ctx.config.studies.get(studyId);
  const row = await ctx.store.studies.get(studyId);
  if (!study || !row) throw notFound(studyId);
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
 * Joins a study from its link. Who gets which session (docs/data-protection.md, "Resuming a session"):
 * - a platform user id (PROLIFIC_PID, workerId, participant_label) is not a secret (researchers,
 *   screenshots and logs hold it), so on its own it never opens an existing session;
 * - a link with the same per-visit id the session started with (Prolific SESSION_ID, MTurk assignmentId:
 *   known only to the participant's own link) resumes it;
 * - a link with a per-visit id none of this user's sessions has starts a session of its own (someone who
 *   joined first with a victim's PID and their own SESSION_ID does not lock the victim out);
 * - a link with a platform id and no per-visit id answers the same whether or not that id took part (no
 *   oracle on who participated): in an open study a fresh session, with `offerResume` so the page offers
 *   the resume code (resumeWithCode) to someone who started before in another browser; in a closed or draft
 *   study the same refusal for everyone (not accepting participants; not found). Both cases run the same
 *   queries (the known sessions are listed either way), so they also take the same time.
 * Every token issued for an existing session revokes its older tokens and disconnects their sockets.
 * New sessions get a balanced task and condition; MTurk previews create nothing. A study switched to
 * draft or closed refuses new sessions, but its existing sessions can still be resumed.
 * Identity and raw URL parameters go only to the identities table.
 */
export async function joinStudy(ctx: ServiceContext, req: JoinRequest): Promise<JoinResponse> {
  const { store } = ctx;
  const info = await studyInfo(ctx, req.studyId);
  if (isMturkPreview(req.params)) {
    if (info.status === 'draft') throw notFound(req.studyId);
    return { preview: true };
  }
  const study = ctx.config.studies.get(req.studyId)!;
  const identity = identityFromParams(req.params);

  const withdrawn = identity.userId !== null && (await hasWithdrawn(ctx, study.id, identity.userId));
  // A platform id without a per-visit id: answered alike whether or not the id took part (see above). Before,
  // a known id got `resumeCodeRequired` here (also in a closed or draft study) and an unknown one a session.
  const pidOnly = identity.userId !== null && identity.sessionId === null;
  // Two first visits of one platform id and per-visit id racing (two tabs, two nodes): the unique index on
  // identities (study, platform, user, per-visit id) lets one insert; the other's transaction fails on it
  // and is retried once, and then finds the session the first created (for a link without a per-visit id the
  // retry starts a session of its own, with a generated per-visit id).
  const attempt = () => store.transaction(async (tx): Promise<{ response: JoinResponse; reissuedFor?: string }> => {
    const now = ctx.now();
    const known = identity.userId === null ? [] : await tx.identities.listForPlatformUser(study.id, identity.platform, identity.userId);
    if (identity.userId !== null) {
      const sameVisit = identity.sessionId === null ? undefined : known.find((k) => k.platformSessionId === identity.sessionId);
      if (sameVisit) return { response: await reopenSession(ctx, tx, sameVisit.sessionId, 'join', null), reissuedFor: sameVisit.sessionId };
    }
    if (info.status === 'draft') throw notFound(study.id);
    if (!info.open) throw new ServiceError('study_unavailable', `study "${study.id}" is not accepting participants (status ${info.status})`);
    if (withdrawn) {
      // A withdrawn person's data must not be collected again under the same platform id.
      throw new ServiceError('study_unavailable', 'you have withdrawn from this study, so it cannot be started again');
    }
    const isPilot = info.status === 'pilot';
    // Pilot sessions do not count towards balance; they are assigned against the same counts. Unconsented
    // visits hold a slot only for a few minutes (services/assignment.ts).
    const since = balanceCountsUnconsentedSince(now);
    // A single task or condition needs no count (the count reads every session of the study).
    const taskIds = study.tasks.map((t) => t.id);
    const taskId = assignCondition(taskIds, taskIds.length > 1 ? await tx.sessions.countByTask(study.id, since) : NO_COUNTS, ctx.rng);
    const conditionIds = study.conditions.map((c) => c.id);
    const conditionId = assignCondition(conditionIds, conditionIds.length > 1 ? await tx.sessions.countByCondition(study.id, since) : NO_COUNTS, ctx.rng);
    const sessionId = crypto.randomUUID();
    // A second session of a PID-only link gets a per-visit id of its own (identities are unique per platform
    // id and per-visit id); the prefix marks it as made here, and no link carries it.
    const platformSessionId = pidOnly && known.some((k) => k.platformSessionId === null)
      ? `${GENERATED_VISIT_PREFIX}${crypto.randomUUID()}`
      : identity.sessionId;
    await tx.sessions.insert({ id: sessionId, studyId: study.id, taskId, conditionId, isPilot, createdAt: now });
    // The simulator's own sessions (common/simulatedParticipant.ts): honoured in a pilot study only, never in a live one.
    if (isPilot && req.params[SIMULATED_PARAM] === '1') await tx.sessions.markSimulated(sessionId);
    const resumeCode = newResumeCode();
    await tx.identities.insert({
      sessionId,
      studyId: study.id,
      platform: identity.platform,
      platformUserId: identity.userId,
      platformStudyId: identity.studyId,
      platformSessionId,
      urlParams: req.params,
      createdAt: now,
    }, hashResumeCode(ctx.pseudonymKey, sessionId, resumeCode));
    await checkStoppingRuleAtJoin(ctx.store, tx, { studyId: study.id, conditionId, isPilot, now }, ctx.log);
    await tx.events.append(sessionId, 'session.created', { studyId: study.id, taskId, conditionId, isPilot }, now, null);
    const token = await issueToken(tx, sessionId, now);
    return { response: { preview: false, token, sessionId, resumed: false, resumeCode, ...(pidOnly ? { offerResume: true } : {}) } };
  });
  const settle = (r: { response: JoinResponse; reissuedFor?: string }): JoinResponse => {
    // After the commit: sockets holding the revoked tokens leave now (the new token is not connected yet).
    if (r.reissuedFor !== undefined) ctx.sessionSockets?.disconnect([r.reissuedFor], 'token_reissued');
    return r.response;
  };
  try {
    return settle(await attempt());
  } catch (err) {
    if (identity.userId === null || err instanceof ServiceError) throw err;
    // Lost the race to a concurrent first visit (unique identity): the retry finds its session.
    const known = await store.identities.listForPlatformUser(study.id, identity.platform, identity.userId);
    if (known.length === 0) throw err;
    return settle(await attempt());
  }
}

/**
 * Reopens a session from its resume code (POST /api/join/resume): the link's platform id names the
 * candidates (a user may have one session per per-visit id), the code picks the one it was issued for.
 * A wrong code reveals nothing about whether the id has a session. Attempts are rate-limited per IP.
 */
export async function resumeWithCode(ctx: ServiceContext, req: ResumeRequest): Promise<JoinedSession> {
  await studyInfo(ctx, req.studyId);
  const identity = identityFromParams(req.params);
  const wrong = () =>
    new ServiceError('forbidden', 'that resume code does not match this study link; check the code on your consent receipt or in the header of the browser you started in', 'code');
  if (normalizeResumeCode(req.code) === null) {
    throw new ServiceError('invalid_input', `a resume code has ${RESUME_CODE_LENGTH} letters and digits, like K7QM-P3XD`, 'code');
  }
  if (identity.userId === null) throw wrong();
  const known = await ctx.store.identities.listForPlatformUser(req.studyId, identity.platform, identity.userId);
  let match: string | undefined;
  for (const k of known) {
    if (resumeCodeMatches(ctx.pseudonymKey, k.sessionId, req.code, await ctx.store.identities.resumeCodeHash(k.sessionId))) match = k.sessionId;
  }
  if (!match) throw wrong();
  const sessionId = match;
  const joined = await ctx.store.transaction((tx) => reopenSession(ctx, tx, sessionId, 'resume_code', displayResumeCode(req.code)));
  ctx.sessionSockets?.disconnect([sessionId], 'token_reissued');
  return joined;
}

/**
 * A new token for an existing session: older tokens are revoked first (the caller disconnects their
 * sockets after the commit). `knownCode` is the code the participant just typed; otherwise the stored
 * hash cannot give the code back, so the client keeps showing the one it has (null here) — except for a
 * session that has none yet (started before resume codes existed), which gets one now.
 */
async function reopenSession(
  ctx: ServiceContext,
  tx: StoreRepositories,
  sessionId: string,
  via: 'join' | 'resume_code',
  knownCode: string | null,
): Promise<JoinedSession> {
  const now = ctx.now();
  let resumeCode = knownCode;
  if (resumeCode === null && !(await tx.identities.resumeCodeHash(sessionId))) {
    resumeCode = newResumeCode();
    await tx.identities.setResumeCodeHash(sessionId, hashResumeCode(ctx.pseudonymKey, sessionId, resumeCode));
  }
  await tx.tokens.deleteForSession(sessionId);
  await tx.events.append(sessionId, 'session.resumed', { via }, now, null);
  return { preview: false, token: await issueToken(tx, sessionId, now), sessionId, resumed: true, resumeCode };
}

/** Whether this platform id withdrew from the study (matched by its tombstone, never by the stored id). */
async function hasWithdrawn(ctx: ServiceContext, studyId: string, platformUserId: string): Promise<boolean> {
  const tombstone = participantTombstone(ctx.pseudonymKey, studyId, platformUserId);
  return ctx.store.withdrawals.isWithdrawn(studyId, tombstone);
}
