import express, { type Request, type Response, type Router } from 'express';
import { cleanTextDeep } from '../services/textBoundary';
import type { Logger } from 'pino';
import {
  DashboardQuery,
  type DashboardData,
  SessionListQuery,
  type SessionListPage,
  type WithdrawalPreview,
  WithdrawalPreviewRequest,
} from '../../common/adminSessionList';
import { loadOrCreatePseudonymKey, sessionPseudonym } from '../../lib/pseudonym';
import type { SessionListFilter, Store } from '../../lib/storage';
import { sendFail, sendOk, sendZodFail } from '../http/respond';
import { costOf, dashboardData, timeOnTaskOf } from './sessionListDashboard';
import { DashboardPlotsRenderer } from './dashboardPlotsRenderer';

export interface SessionListRouteDeps {
  store: Store;
  dataDir: string;
  log: Logger;
  now: () => number;
  /** The study's title when it exists (the routes answer 404 otherwise). */
  studyTitle: (studyId: string) => string | undefined | Promise<string | undefined>;
}

const DAY_MS = 86_400_000;
const isDateOnly = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s);

/**
 * Registers the sessions page and dashboard routes (common/adminSessionList.ts) on the guarded admin
 * router: every session of a study (filtered, sorted, paged, pseudonym search) and the plots.
 */
export function registerSessionListRoutes(guarded: Router, deps: SessionListRouteDeps): void {
  const repo = deps.store.sessionList;
  const plots = new DashboardPlotsRenderer(deps.log, deps.now);
  let key: Buffer | undefined;
  const pseudonymOf = (sessionId: string) => sessionPseudonym((key ??= loadOrCreatePseudonymKey(deps.dataDir)), sessionId);

  const studyOr404 = async (req: Request, res: Response): Promise<{ id: string; title: string } | undefined> => {
    const id = String(req.params.studyId);
    const title = await deps.studyTitle(id);
    if (title === undefined) {
      sendFail(res, 'not_found', `no study "${id}"`);
      return undefined;
    }
    return { id, title };
  };

  const handle = (fn: (req: Request, res: Response) => Promise<void>) => (req: Request, res: Response) => {
    fn(req, res).catch((err: unknown) => {
      deps.log.error({ err, path: req.path }, 'session list route failed');
      if (!res.headersSent) sendFail(res, 'internal', 'the sessions query failed; see the server log');
    });
  };

  guarded.get(
    '/api/admin/studies/:studyId/session-list',
    handle(async (req, res) => {
      const parsed = SessionListQuery.safeParse(cleanTextDeep(req.query));
      if (!parsed.success) return sendZodFail(res, parsed.error, 'GET session-list');
      const study = await studyOr404(req, res);
      if (!study) return;
      const q = parsed.data;
      const filter: SessionListFilter = { pilot: q.pilot, judged: q.judged };
      if (q.status) filter.status = q.status;
      if (q.condition) filter.conditionId = q.condition;
      if (q.qualityMin !== undefined) filter.qualityMin = q.qualityMin;
      if (q.qualityMax !== undefined) filter.qualityMax = q.qualityMax;
      if (q.from) filter.createdFrom = Date.parse(q.from);
      if (q.to) filter.createdTo = Date.parse(q.to) + (isDateOnly(q.to) ? DAY_MS : 1);
      let matchedPlatformId = false;
      if (q.q) {
        // Pseudonyms are keyed HMACs of session ids: compare in code (a prefix of either matches).
        const needle = q.q.toLowerCase();
        const byId = (await repo.sessionIds(study.id)).filter((id) => id.toLowerCase().startsWith(needle) || pseudonymOf(id).startsWith(needle));
        // A platform id (PROLIFIC_PID, workerId…) exactly as typed, through the identity table: the rows show pseudonyms only.
        const byPlatform = await deps.store.withdrawals.findSessionIds(study.id, q.q.trim());
        matchedPlatformId = byPlatform.length > 0;
        filter.sessionIds = [...new Set([...byId, ...byPlatform])];
      }
      const { total, rows } = await repo.listPage(study.id, filter, q.sort, q.order, q.pageSize, (q.page - 1) * q.pageSize);
      sendOk<SessionListPage>(res, {
        ...(q.q ? { matchedPlatformId } : {}),
        total,
        page: q.page,
        pageSize: q.pageSize,
        rows: rows.map((r) => ({
          sessionId: r.sessionId,
          pseudonym: pseudonymOf(r.sessionId),
          taskId: r.taskId,
          conditionId: r.conditionId,
          status: r.status as SessionListPage['rows'][number]['status'],
          step: r.step as SessionListPage['rows'][number]['step'],
          isPilot: r.isPilot,
          createdAt: r.createdAt,
          endedAt: r.endedAt,
          timeOnTaskMs: timeOnTaskOf(r),
          messages: r.messages,
          userTokens: r.userTokens,
          agentTokens: r.agentTokens,
          cost: costOf(r),
          quality: r.quality,
        })),
      });
    }),
  );

  // Before a withdrawal: how many sessions that platform id has here, by pseudonym, so the researcher confirms
  // what will be deleted (and sees a mistyped id match nothing). POST: the id stays out of URLs and access logs.
  guarded.post(
    '/api/admin/studies/:studyId/withdrawal-preview',
    express.json({ limit: '4kb' }),
    handle(async (req, res) => {
      const parsed = WithdrawalPreviewRequest.safeParse(req.body);
      if (!parsed.success) return sendZodFail(res, parsed.error, 'POST withdrawal-preview');
      const study = await studyOr404(req, res);
      if (!study) return;
      const ids = await deps.store.withdrawals.findSessionIds(study.id, parsed.data.participant);
      const sessions = (await Promise.all(ids.map((id) => deps.store.sessions.get(id)))).filter((s) => s !== undefined);
      sendOk<WithdrawalPreview>(res, {
        sessions: sessions
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((s) => ({ pseudonym: pseudonymOf(s.id), status: s.status, isPilot: s.isPilot, createdAt: s.createdAt })),
      });
    }),
  );

  const loadDashboard = async (studyId: string, pilot: DashboardQuery['pilot']): Promise<DashboardData> => {
    const [sessions, steps] = await Promise.all([repo.allFacts(studyId, pilot), repo.stepsReached(studyId)]);
    return dashboardData(studyId, pilot, deps.now(), sessions, steps);
  };

  guarded.get(
    '/api/admin/studies/:studyId/dashboard',
    handle(async (req, res) => {
      const parsed = DashboardQuery.safeParse(cleanTextDeep(req.query));
      if (!parsed.success) return sendZodFail(res, parsed.error, 'GET dashboard');
      const study = await studyOr404(req, res);
      if (!study) return;
      sendOk<DashboardData>(res, await loadDashboard(study.id, parsed.data.pilot));
    }),
  );

  // The plots as SVG in an HTML page for a sandboxed iframe: no scripts at all (same policy as the report).
  guarded.get(
    '/api/admin/studies/:studyId/dashboard/plots',
    handle(async (req, res) => {
      const parsed = DashboardQuery.safeParse(cleanTextDeep(req.query));
      if (!parsed.success) return sendZodFail(res, parsed.error, 'GET dashboard/plots');
      const study = await studyOr404(req, res);
      if (!study) return;
      // Rendered on a worker and cached per data version: the newest event id, and the study's latest dashboard judge
      // run (quality is no trajectory event), so a finished judge run shows at once (dashboardPlotsRenderer.ts).
      const judge = await deps.store.adminJobs.latest(study.id, 'judge');
      const version = `${await deps.store.adminQueries.lastEventId()}:${judge ? `${judge.id}:${judge.state}:${judge.done}` : '-'}`;
      const html = await plots.page(study.id, parsed.data.pilot, version, async () => ({ data: await loadDashboard(study.id, parsed.data.pilot), title: study.title }));
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.type('html').send(html);
    }),
  );
}
