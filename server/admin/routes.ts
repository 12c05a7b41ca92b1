import { existsSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import express, { Router, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
import { rateLimit, type Store as RateLimitStore } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { Store } from '../../lib/storage';
import { sendFail, sendOk as sendAny, sendZodFail } from '../http/respond';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';
import { ExportRefused } from './researchTools';
import {
  ExportRequest,
  JudgeRunRequest,
  LoginRequest,
  RunKind,
  StatusChangeRequest,
  WithdrawRequest,
  type AuditEntryView,
  type EmptyReply,
  type ExportTicket,
  type LoginResponse,
  type MonitorSnapshot,
  type RunsStatus,
  type RunStarted,
  type SessionDetail,
  type SessionListEntry,
  type StatusChangeResponse,
  type StudySummary,
  type WithdrawalResult,
} from '../../common/admin';
import { AdminSessions, clearSessionCookies, requireAdmin, requireCsrf, setSessionCookies } from './auth';
import type { ExportJobs } from './exportJobs';
import type { AdminRuns, RunRequest } from './runs';
import type { AdminNamespace } from './monitor';
import { verifyPassword } from './password';
import { sessionDetail } from './sessionDetail';
import { registerSessionListRoutes } from './sessionListRoutes';
import { withdrawParticipant } from './withdrawal';
import { registerPreregistrationRoutes } from './preregistrationRoutes';
import { needsLockBeforeLive } from '../../lib/preregistration';
import type { LiveSessions } from '../socket/liveSessions';

export interface AdminRouteDeps {
  store: Store;
  config: LoadedConfig;
  dataDir: string;
  log: Logger;
  now: () => number;
  sessions: AdminSessions;
  namespace: AdminNamespace;
  exports: ExportJobs;
  runs: AdminRuns;
  /** Stops the withdrawn sessions' sockets and replies before their rows are deleted. */
  liveSessions?: LiveSessions;
  /** Failed login attempts per IP per 15 minutes (default 10). */
  loginAttemptsPer15Min?: number;
  /** Where the login limit counts (Redis across nodes; default in memory). Fails open while unreachable. */
  loginRateLimitStore?: RateLimitStore;
}

/** sendOk with the response type spelled out, so every route answers with its common/admin.ts schema. */
function sendOk<T>(res: Response, data: T, status?: number): void {
  sendAny(res, data, status);
}

/** The one researcher identity: a single shared password, so the actor is "researcher" (plus a session tag). */
const ACTOR = 'researcher';

/**
 * Every route under /api/admin/*. Login is the only one open; everything else needs the researcher
 * session cookie, and every state-changing request also needs the CSRF header. Every action is audited.
 */
export function adminRoutes(deps: AdminRouteDeps): Router {
  const { store, log, now, sessions } = deps;
  const { audit, adminQueries: queries, adminAuth: authRepo } = store;
  const router = Router();
  const json = express.json({ limit: '16kb' });
  router.use('/api/admin', cookieParser(), (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.post(
    '/api/admin/login',
    rateLimit({
      ...(deps.loginRateLimitStore ? { store: deps.loginRateLimitStore, passOnStoreError: true } : {}),
      windowMs: 15 * 60_000,
      limit: deps.loginAttemptsPer15Min ?? 10,
      skipSuccessfulRequests: true,
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      handler: (_req, res) => sendFail(res, 'rate_limited', 'too many login attempts; wait 15 minutes'),
    }),
    json,
    async (req, res) => {
      const parsed = LoginRequest.safeParse(req.body);
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST /api/admin/login');
      const credential = await authRepo.getCredential();
      if (!credential || !(await verifyPassword(parsed.data.password, credential.passwordHash))) {
        await audit.append({ at: now(), actor: 'anonymous', action: 'login_failed', studyId: null });
        return sendFail(res, 'unauthorized', 'wrong password');
      }
      const session = await sessions.create(ACTOR);
      setSessionCookies(req, res, session);
      await audit.append({ at: now(), actor: ACTOR, action: 'login', studyId: null });
      sendOk<LoginResponse>(res, { actor: ACTOR, csrfToken: session.csrfToken });
    },
  );

  // Everything below requires the researcher session; non-GET requests also the CSRF token.
  const guarded = Router();
  guarded.use(requireAdmin(sessions), requireCsrf);

  guarded.get('/api/admin/me', (req, res) => sendOk<LoginResponse>(res, { actor: req.admin!.actor, csrfToken: req.admin!.csrfToken }));

  guarded.post('/api/admin/logout', async (req, res) => {
    await sessions.end(req.admin!.tokenHash);
    deps.namespace.disconnectSession(req.admin!.tokenHash);
    clearSessionCookies(req, res);
    await audit.append({ at: now(), actor: req.admin!.actor, action: 'logout', studyId: null });
    sendOk<EmptyReply>(res, {});
  });

  guarded.get('/api/admin/studies', async (_req, res) => {
    const rows = await store.studies.list();
    const countsOf = await Promise.all(rows.map((row) => queries.countsByConditionAndStatus(row.id)));
    const inProgress = await Promise.all(rows.map((row) => store.sessions.countActive(row.id)));
    const withoutVisitId = await Promise.all(rows.map((row) => store.identities.countWithoutVisitId(row.id)));
    const list: StudySummary[] = rows.map((row, i) => {
      const def = deps.config.studies.get(row.id);
      const counts = countsOf[i]!;
      return {
        id: row.id,
        title: row.title,
        status: row.status,
        configured: def !== undefined,
        tasks: def?.tasks.map((t) => ({ id: t.id, title: t.title })) ?? [],
        conditions: def?.conditions.map((c) => c.id) ?? [...new Set(counts.map((c) => c.conditionId))],
        counts,
        totalSessions: counts.reduce((a, c) => a + c.n, 0),
        pilotSessions: counts.filter((c) => c.isPilot).reduce((a, c) => a + c.n, 0),
        sessionsInProgress: inProgress[i]!,
        sessionsWithoutVisitId: withoutVisitId[i]!,
      };
    });
    sendOk<StudySummary[]>(res, list);
  });

  const studyOr404 = async (req: Request, res: Response): Promise<string | undefined> => {
    const id = String(req.params.studyId);
    if (!(await store.studies.get(id))) {
      sendFail(res, 'not_found', `no study "${id}"`);
      return undefined;
    }
    return id;
  };

  guarded.post('/api/admin/studies/:studyId/status', json, async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    const parsed = StatusChangeRequest.safeParse(req.body);
    if (!parsed.success) return sendZodFail(res, parsed.error, 'POST status');
    const study = deps.config.studies.get(studyId);
    const optOut = parsed.data.preregistration_opt_out;
    if (parsed.data.status === 'live' && study && optOut === undefined && (await needsLockBeforeLive(store, study)))
      return sendFail(res, 'conflict', 'the study has a pre-registration plan that is not locked: lock it first, or state why it goes live without a lock', 'preregistration');
    await store.transaction(async (tx) => {
      const from = (await tx.studies.get(studyId))!.status;
      await tx.studies.setStatus(studyId, parsed.data.status, now());
      await tx.audit.append({ at: now(), actor: req.admin!.actor, action: 'status_change', studyId, details: { from, to: parsed.data.status } });
      if (optOut !== undefined && parsed.data.status === 'live')
        await tx.audit.append({ at: now(), actor: req.admin!.actor, action: 'preregistration_opt_out', studyId, details: { reason: optOut } });
    });
    sendOk<StatusChangeResponse>(res, { studyId, status: parsed.data.status });
  });

  guarded.get('/api/admin/studies/:studyId/monitor', async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (studyId) sendOk<MonitorSnapshot>(res, await deps.namespace.snapshot(studyId));
  });

  guarded.get('/api/admin/studies/:studyId/sessions', async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    const limit = Math.min(Math.max(Number(req.query.limit ?? 100) || 100, 1), 1000);
    const offset = Math.max(Number(req.query.offset ?? 0) || 0, 0);
    sendOk<SessionListEntry[]>(res, await queries.listSessions(studyId, limit, offset));
  });

  guarded.get('/api/admin/studies/:studyId/audit', async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (studyId) sendOk<AuditEntryView[]>(res, await audit.list({ studyId, limit: 200 }));
  });

  guarded.get('/api/admin/sessions/:sessionId', async (req, res) => {
    const surveyOf = (studyId: string) => {
      const study = deps.config.studies.get(studyId);
      return study ? deps.config.surveys.get(study.survey) : undefined;
    };
    const detail = await sessionDetail(store, String(req.params.sessionId), surveyOf);
    if (!detail) return sendFail(res, 'not_found', 'no such session');
    sendOk<SessionDetail>(res, detail);
  });

  guarded.get('/api/admin/sessions/:sessionId/uploads/:uploadId', async (req, res) => {
    const upload = await store.uploads.get(String(req.params.uploadId));
    if (!upload || upload.sessionId !== req.params.sessionId) return sendFail(res, 'not_found', 'no such upload');
    const root = resolve(deps.dataDir);
    const file = resolve(root, upload.storagePath);
    if (!file.startsWith(root + sep) || !existsSync(file)) return sendFail(res, 'not_found', 'upload file missing');
    res.setHeader('Content-Type', upload.contentType);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'");
    res.sendFile(file);
  });

  guarded.post('/api/admin/studies/:studyId/exports', json, async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    const parsed = ExportRequest.safeParse(req.body ?? {});
    if (!parsed.success) return sendZodFail(res, parsed.error, 'POST export');
    await audit.append({ at: now(), actor: req.admin!.actor, action: 'export', studyId, details: { ...parsed.data, via: 'dashboard' } });
    try {
      let lastEmit = 0;
      const job = await deps.exports.run({
        studyId,
        ...parsed.data,
        ownerTokenHash: req.admin!.tokenHash,
        actor: req.admin!.actor,
        onProgress: (done, total) => {
          if (done !== total && now() - lastEmit < 250) return;
          lastEmit = now();
          deps.namespace.emitToAll('export:progress', { studyId, done, total });
        },
      });
      sendOk<ExportTicket>(res, { ...job, downloadUrl: `/api/admin/exports/${job.ticket}/download` });
    } catch (err) {
      if (err instanceof ExportRefused) return sendFail(res, 'conflict', err.message);
      log.error({ err }, 'dashboard export failed');
      sendFail(res, 'internal', 'the export failed; see the server log');
    }
  });

  guarded.get('/api/admin/exports/:ticket/download', async (req, res) => {
    const ticket = String(req.params.ticket);
    const found = await deps.exports.locate(ticket, req.admin!.tokenHash);
    if (found.at === 'elsewhere')
      return sendFail(res, 'conflict', `this export was prepared on node ${found.node}, whose DATA_DIR this node does not see; download it from that node or run the export again`);
    if (found.at === 'none') return sendFail(res, 'not_found', 'unknown, expired or already downloaded export; run the export again');
    // Its folder removed meanwhile (e.g. by a clean-up): say so rather than send an empty archive.
    if (!existsSync(found.job.dir)) return sendFail(res, 'not_found', 'the export\'s files are gone; run the export again');
    deps.exports.streamZip(found.job, res);
  });

  guarded.post('/api/admin/studies/:studyId/withdrawals', json, async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    const parsed = WithdrawRequest.safeParse(req.body);
    if (!parsed.success) return sendZodFail(res, parsed.error, 'POST withdrawal');
    const result = await withdrawParticipant(store, {
      dataDir: deps.dataDir,
      studyId,
      platformUserId: parsed.data.participant,
      actor: req.admin!.actor,
      ...(deps.liveSessions ? { live: deps.liveSessions } : {}),
    });
    // An analysis report made before the withdrawal may still count the person: drop it so it is rerun.
    deps.runs.discardReport(studyId);
    sendOk<WithdrawalResult>(res, result);
  });

  guarded.post('/api/admin/studies/:studyId/runs/:kind', json, async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    const parsedKind = RunKind.safeParse(req.params.kind);
    if (!parsedKind.success) return sendFail(res, 'not_found', 'runs are "judge" or "analysis"', 'kind');
    const kind = parsedKind.data;
    let request: RunRequest = { kind: 'analysis' };
    if (kind === 'judge') {
      // No body (e.g. curl without -d) means the defaults.
      const options = JudgeRunRequest.safeParse(req.body ?? {});
      if (!options.success) return sendZodFail(res, options.error, 'POST judge run');
      request = { kind, ...options.data };
    }
    const run = await deps.runs.start(request, studyId, req.admin!.actor);
    if (!run.started) return sendFail(res, 'conflict', `a ${kind} run is already in progress for this study`);
    sendOk<RunStarted>(res, { started: true }, 202);
  });

  guarded.get('/api/admin/studies/:studyId/runs', async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (studyId) sendOk<RunsStatus>(res, { ...(await deps.runs.status(studyId)), hasReport: deps.runs.hasReport(studyId) });
  });

  // The analysis report (its plots are SVG rendered on the server) for a sandboxed iframe: no scripts at all.
  guarded.get('/api/admin/studies/:studyId/analysis/report', async (req, res) => {
    const studyId = await studyOr404(req, res);
    if (!studyId) return;
    if (!deps.runs.hasReport(studyId)) return sendFail(res, 'not_found', 'no analysis yet: run the analysis first');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.type('html').sendFile(deps.runs.reportFile(studyId));
  });

  registerPreregistrationRoutes(guarded, { store, config: deps.config, dataDir: deps.dataDir, log, now });
  registerSessionListRoutes(guarded, { store, dataDir: deps.dataDir, log, now, studyTitle: async (id) => (await store.studies.get(id))?.title });
  router.use(guarded);
  // Unknown admin routes answer 401 to strangers (no route discovery) and 404 to researchers.
  router.all('/api/admin/*rest', requireAdmin(sessions), (_req, res) => sendFail(res, 'not_found', 'no such admin route'));
  return router;
}
