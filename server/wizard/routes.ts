import { createHash } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
import type { Logger } from 'pino';
import { WizardSendRequest, type WizardQueue, type WizardReviewOutcome, type WizardUse, type WizardQueueItem, type WizardReviewDetail, type WizardSent } from '../../common/wizard';
import type { ReviewRow } from '../../lib/storage';
import { spokenByWizard } from '../../common/group';
import { requireAdmin, requireCsrf, type AdminSessions } from '../admin/auth';
import { sendError, sendFail, sendOk, sendZodFail } from '../http/respond';
import { ServiceError, type ServiceContext } from '../services/serviceContext';
import type { WizardDesk } from './desk';
import { DISCARDED_KIND } from './finishReview';

/**
 * The researcher's id for claims and the audit log: the admin actor plus a tag of the login session, so two
 * researchers sharing the one password are told apart (a hash of the session's token hash: nothing usable).
 */
export function researcherId(req: Request): string {
  return `${req.admin!.actor}#${createHash('sha256').update(req.admin!.tokenHash).digest('hex').slice(0, 8)}`;
}

/** The first line or so of a participant's message, for the queue. */
function previewOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
}

/**
 * /api/admin/wizard/*: the wizard console's queue, one waiting reply with its transcript and draft, and the
 * researcher's actions (claim, release, send, discard). Researcher login required; POSTs need the CSRF token.
 */
export function wizardRoutes(ctx: ServiceContext, desk: WizardDesk, sessions: AdminSessions, log: Logger): Router {
  const router = Router();
  const guarded = Router();
  router.use('/api/admin/wizard', cookieParser(), (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  guarded.use('/api/admin/wizard', requireAdmin(sessions), requireCsrf);
  const json = express.json({ limit: '64kb' });

  const itemOf = async (r: ReviewRow, me: string): Promise<WizardQueueItem> => ({
    replyId: r.replyId,
    sessionId: r.sessionId,
    conditionId: (await ctx.store.sessions.get(r.sessionId))?.conditionId ?? '',
    mode: r.mode,
    state: r.state === 'claimed' ? 'claimed' : 'waiting',
    claimed: r.claimedBy === null ? null : r.claimedBy === me ? 'you' : 'other',
    waitingSince: r.createdAt,
    deadlineAt: r.deadlineAt,
    draftDone: r.draftText !== null,
    preview: previewOf((await ctx.store.messages.get(r.replyTo))?.text ?? ''),
  });

  const handle = (name: string, fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) =>
    fn(req, res).catch((err: unknown) => sendError(res, err, log, name));

  guarded.get(
    '/api/admin/wizard/studies/:studyId/queue',
    handle('wizard queue', async (req, res) => {
      const studyId = String(req.params.studyId);
      if (!ctx.config.studies.has(studyId)) return sendFail(res, 'not_found', `no study "${studyId}"`);
      const me = researcherId(req);
      const items = await Promise.all((await ctx.store.reviews.listOpen(studyId)).map((r) => itemOf(r, me)));
      sendOk<WizardQueue>(res, { studyId, serverNow: ctx.now(), items });
    }),
  );

  // Whether the study has a review or wizard condition (or a group agent a researcher speaks as): the dashboard
  // links the console only from such studies.
  guarded.get(
    '/api/admin/wizard/studies/:studyId/uses',
    handle('wizard uses', async (req, res) => {
      const study = ctx.config.studies.get(String(req.params.studyId));
      if (!study) return sendFail(res, 'not_found', `no study "${String(req.params.studyId)}"`);
      const uses = study.conditions.some((c) => (c.assistant !== undefined && c.assistant.mode !== 'model') || (c.agents ?? []).some(spokenByWizard));
      sendOk<WizardUse>(res, { uses });
    }),
  );

  guarded.get(
    '/api/admin/wizard/reviews/:replyId',
    handle('wizard review', async (req, res) => {
      const review = await ctx.store.reviews.get(String(req.params.replyId));
      if (!review || (review.state !== 'waiting' && review.state !== 'claimed')) throw new ServiceError('not_found', 'no such reply waiting for review');
      const cfg = await desk.assistantFor(review);
      const draftVisible = review.mode === 'review' || cfg.show_model_draft;
      const messages = await ctx.store.messages.listForSession(review.sessionId);
      sendOk<WizardReviewDetail>(res, {
        item: await itemOf(review, researcherId(req)),
        serverNow: ctx.now(),
        transcript: messages.map((m) => ({ role: m.role, text: m.text, status: m.status })),
        draft: draftVisible ? (review.draftText ?? desk.liveDraft(review.replyId) ?? '') : null,
        draftVisible,
        cannedReplies: cfg.canned_replies,
        holdingMessage: cfg.fallback.holding_message,
      });
    }),
  );

  guarded.get(
    '/api/admin/wizard/reviews/:replyId/outcome',
    handle('wizard review outcome', async (req, res) => {
      const review = await ctx.store.reviews.get(String(req.params.replyId));
      if (!review) throw new ServiceError('not_found', 'no such reply');
      const me = researcherId(req);
      const message = review.state === 'discarded' ? await ctx.store.messages.get(review.replyId) : undefined;
      // Who ended it, as the console may say it (the holder of the claim): researcher ids never leave the server.
      const by = review.claimedBy !== null ? (review.claimedBy === me ? 'you' : 'other') : review.state === 'sent' ? 'other' : null;
      // finishReview stores the reason of a discard other than the participant's Stop as the message's error kind.
      const kind = message?.error?.kind ?? '';
      const reason = review.state !== 'discarded' || !message ? null : kind.startsWith(DISCARDED_KIND) ? kind.slice(DISCARDED_KIND.length) : 'participant';
      sendOk<WizardReviewOutcome>(res, { replyId: review.replyId, state: review.state, by, reason });
    }),
  );

  guarded.post(
    '/api/admin/wizard/reviews/:replyId/claim',
    handle('wizard claim', async (req, res) => {
      await desk.claim(String(req.params.replyId), researcherId(req));
      sendOk(res, {});
    }),
  );

  guarded.post(
    '/api/admin/wizard/reviews/:replyId/release',
    handle('wizard release', async (req, res) => {
      await desk.release(String(req.params.replyId), researcherId(req));
      sendOk(res, {});
    }),
  );

  guarded.post(
    '/api/admin/wizard/reviews/:replyId/send',
    json,
    handle('wizard send', async (req, res) => {
      const parsed = WizardSendRequest.safeParse(req.body);
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST /api/admin/wizard/reviews/:replyId/send');
      const { action, text } = parsed.data;
      if (action !== 'approve' && text === undefined) return sendFail(res, 'invalid_input', `${action} needs the reply text`, 'text');
      // Answered only after COMMIT: the message, its reply.finished event and the review's resolution.
      const row = await desk.send(String(req.params.replyId), researcherId(req), action, text);
      const review = await ctx.store.reviews.get(row.id);
      sendOk<WizardSent>(res, { messageId: row.id, origin: review?.origin ?? 'wizard', editDistance: review?.editDistance ?? null });
    }),
  );

  guarded.post(
    '/api/admin/wizard/reviews/:replyId/discard',
    handle('wizard discard', async (req, res) => {
      await desk.discard(String(req.params.replyId), researcherId(req));
      sendOk(res, {});
    }),
  );

  router.use(guarded);
  return router;
}
