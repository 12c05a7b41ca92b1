import express, { type Request, type Response, Router } from 'express';
import { rateLimit, type Store as RateLimitStore } from 'express-rate-limit';
import crypto from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import type { Logger } from 'pino';
import { z } from 'zod';
import { JoinRequest, MAX_UPLOAD_BYTES, ResumeRequest, UploadQuery, UrlParams } from '../../common/http';
import { identityFromParams } from '../services/identity';
import { cleanTextDeep } from '../services/textBoundary';
import { Slug } from '../../common/ids';
import { joinStudy, resumeWithCode, studyPublic } from '../services/join';
import { loadSession, type ServiceContext } from '../services/serviceContext';
import { materialPathProblem } from '../../lib/studyFiles/studyConfig';
import { sessionForToken } from '../services/participantTokens';
import { sanitizeFileName, storeUpload, uploadFile } from '../services/uploads';
import { sendError, sendFail, sendOk, sendZodFail, tooLargeMessage } from './respond';

export interface ParticipantRoutesOptions {
  /** Requests per minute per IP to POST /api/join (default 60). */
  joinRateLimitPerMinute?: number;
  /** Resume-code attempts per IP per 15 minutes to POST /api/join/resume (default 10). */
  resumeAttemptsPer15Min?: number;
  /** Refused resume-code attempts per study and platform id (PROLIFIC_PID, workerId, label) per 15 minutes (default 10). */
  resumeAttemptsPerIdPer15Min?: number;
  /** Refused resume-code attempts of all clients together per 15 minutes (default 100). */
  resumeFailuresPer15Min?: number;
  /** A counter store per limit (server/cluster/rateLimitStore.ts: Redis across nodes); default in memory. */
  rateLimitStore?: (limitName: string) => RateLimitStore;
}

/**
 * The participant token, from `Authorization: Bearer <token>` only. A token in the URL (`?token=`) is
 * deliberately not accepted: URLs end up in browser history, proxy logs and Referer headers. The client
 * fetches images and materials with the header into blob URLs instead.
 */
function tokenOf(req: Request): string | undefined {
  const header = req.get('authorization');
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  return undefined;
}

/**
 * The per-person key of the resume-code limit: study and platform id of the link, hashed (the counter store
 * may be Redis, which should not hold platform ids). A body without one shares one key per study.
 */
function resumeLimitKey(req: Request): string {
  const body = (req.body ?? {}) as { studyId?: unknown; params?: unknown };
  const studyId = typeof body.studyId === 'string' ? body.studyId : '';
  const parsed = UrlParams.safeParse(body.params);
  const id = parsed.success ? identityFromParams(parsed.data) : undefined;
  const who = id?.userId ? `${id.platform}\0${id.userId}` : 'none';
  return crypto.createHash('sha256').update(`${studyId}\0${who}`, 'utf8').digest('hex');
}

/**
 * Participant HTTP API (see common/http.ts): join, public study info, image upload, session files.
 * Every session route resolves the token to its one session; nothing reaches another session's data.
 */
export function participantRoutes(ctx: ServiceContext, log: Logger, options: ParticipantRoutesOptions = {}): Router {
  const router = Router();
  const json = express.json({ limit: '32kb' });

  const authSession = async (req: Request, res: Response): Promise<string | undefined> => {
    const token = tokenOf(req);
    const sessionId = token ? (await sessionForToken(ctx.store, token))?.id : undefined;
    if (!sessionId) {
      const inUrl = !token && req.query.token !== undefined;
      sendFail(res, 'unauthorized', inUrl ? 'a token in the URL is not accepted; send it as "Authorization: Bearer <token>"' : 'missing or unknown participant token');
    }
    return sessionId;
  };

  // Counters in a shared store fail open: a Redis restart never refuses a participant.
  const storeOf = (name: string) => (options.rateLimitStore ? { store: options.rateLimitStore(name), passOnStoreError: true } : {});

  router.post(
    '/api/join',
    rateLimit({
      ...storeOf('join'),
      windowMs: 60_000,
      limit: options.joinRateLimitPerMinute ?? 60,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      handler: (_req, res) => sendFail(res, 'rate_limited', 'too many join requests; please wait a minute'),
    }),
    json,
    async (req, res) => {
      const parsed = JoinRequest.safeParse(cleanTextDeep(req.body));
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST /api/join');
      try {
        sendOk(res, await joinStudy(ctx, parsed.data));
      } catch (err) {
        sendError(res, err, log, 'join');
      }
    },
  );

  // Guessing a resume code (30^8 codes) is hopeless at these rates; a participant who mistypes has ten tries.
  // Three limits, so that no client picks its own limit key: per IP (a loopback peer may name any IP in
  // X-Forwarded-For under the default TRUST_PROXY=loopback), per platform id of the study link (every guess at
  // one person's code counts, from wherever it comes) and for the whole server (or cluster, with Redis). The
  // last two count only refused attempts, so a participant who resumes is never counted against others.
  const resumeLimit = (name: string, limit: number, keyGenerator?: (req: Request) => string) =>
    rateLimit({
      ...storeOf(name),
      windowMs: 15 * 60_000,
      limit,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      ...(keyGenerator ? { keyGenerator, skipSuccessfulRequests: true } : {}),
      handler: (_req, res) => sendFail(res, 'rate_limited', 'too many resume code attempts; please wait 15 minutes and try again'),
    });
  router.post(
    '/api/join/resume',
    resumeLimit('resume', options.resumeAttemptsPer15Min ?? 10),
    json,
    resumeLimit('resume-pid', options.resumeAttemptsPerIdPer15Min ?? 10, resumeLimitKey),
    resumeLimit('resume-all', options.resumeFailuresPer15Min ?? 100, () => 'all'),
    async (req, res) => {
      const parsed = ResumeRequest.safeParse(cleanTextDeep(req.body));
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST /api/join/resume');
      try {
        sendOk(res, await resumeWithCode(ctx, parsed.data));
      } catch (err) {
        sendError(res, err, log, 'resume');
      }
    },
  );

  router.get('/api/studies/:id/public', async (req, res) => {
    const id = Slug.safeParse(req.params.id);
    if (!id.success) return sendFail(res, 'not_found', 'no such study');
    try {
      sendOk(res, await studyPublic(ctx, id.data));
    } catch (err) {
      sendError(res, err, log, 'study public');
    }
  });

  router.post(
    '/api/session/upload',
    // The token is checked before the body is read: a stranger cannot make the server buffer 5 MB.
    async (req, res, next) => {
      try {
        const sessionId = await authSession(req, res);
        if (!sessionId) return;
        res.locals.sessionId = sessionId;
        next();
      } catch (err) {
        sendError(res, err, log, 'upload auth');
      }
    },
    // Any content type is read as bytes (capped) so a wrong type gets a clear message rather than an empty body.
    express.raw({ type: () => true, limit: MAX_UPLOAD_BYTES }),
    async (req, res) => {
      const sessionId = res.locals.sessionId as string;
      const query = UploadQuery.safeParse(req.query);
      if (!query.success) return sendZodFail(res, query.error, 'POST /api/session/upload');
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      try {
        const data = await storeUpload(ctx, sessionId, {
          fieldId: query.data.field,
          fileName: query.data.name,
          contentType: req.get('content-type') ?? '',
          bytes,
        });
        sendOk(res, data, 201);
      } catch (err) {
        sendError(res, err, log, 'upload');
      }
    },
  );

  router.get('/api/session/uploads/:id', async (req, res) => {
    try {
      const sessionId = await authSession(req, res);
      if (!sessionId) return;
      const id = z.uuid().safeParse(req.params.id);
      if (!id.success) return sendFail(res, 'not_found', 'no such upload in this session');
      const file = await uploadFile(ctx, sessionId, id.data);
      // Shown inline as the image it was checked to be; never sniffed, never a script context if opened directly.
      res
        .type(file.contentType)
        .set({
          'Cache-Control': 'private, no-store',
          'X-Content-Type-Options': 'nosniff',
          'Content-Disposition': `inline; filename="${sanitizeFileName(file.fileName) ?? 'image'}"`,
          'Content-Security-Policy': "default-src 'none'; sandbox",
        })
        .sendFile(file.abs);
    } catch (err) {
      sendError(res, err, log, 'upload read');
    }
  });

  router.get('/api/session/materials/:name', async (req, res) => {
    try {
      const sessionId = await authSession(req, res);
      if (!sessionId) return;
      const s = await loadSession(ctx, sessionId);
      const material = s.task.materials.find((m) => m.name === req.params.name);
      if (!material) return sendFail(res, 'not_found', `no material "${req.params.name}" in this task`);
      // Checked again now: the file may have been replaced by a link to outside studies/ since start-up.
      const problem = materialPathProblem(s.study.dir, material.path);
      if (problem) {
        log.warn({ material: material.name, problem }, 'material not served');
        return sendFail(res, 'not_found', 'material file missing on the server');
      }
      const abs = fs.realpathSync(path.resolve(s.study.dir, material.path));
      res.set('Cache-Control', 'private, no-store').attachment(material.name).sendFile(abs);
    } catch (err) {
      sendError(res, err, log, 'material');
    }
  });

  // Too-large bodies become a clear envelope stating the limit of the route that refused them (body-parser's `limit`).
  router.use((err: unknown, _req: Request, res: Response, next: (err?: unknown) => void) => {
    const e = err as { type?: string; status?: number; limit?: number };
    if (e?.type === 'entity.too.large') return sendFail(res, 'too_large', tooLargeMessage(e.limit ?? MAX_UPLOAD_BYTES));
    if (e?.type === 'entity.parse.failed') return sendFail(res, 'invalid_input', 'the request body is not valid JSON');
    next(err);
  });

  return router;
}
