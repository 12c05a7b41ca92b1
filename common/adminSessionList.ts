/**
 * The researcher's sessions page and dashboard (issue 16), under the guarded /api/admin router:
 *
 *  GET /studies/:studyId/session-list?page&pageSize&sort&order&status&condition&pilot&judged&qualityMin&qualityMax&from&to&q
 *      → SessionListPage (every session of the study, paged; q matches a pseudonym or session id prefix)
 *  GET /studies/:studyId/dashboard?pilot     → DashboardData (the numbers behind the plots)
 *  GET /studies/:studyId/dashboard/plots?pilot&v → an HTML page of vega-lite plots rendered as SVG on the
 *      server, for a sandboxed iframe (no scripts), like the analysis report
 *
 * Query parameters are validated (strict: an unknown parameter is named in the error).
 */
import { z } from 'zod';
import { SessionStatus, Step } from './session';

/** A date (YYYY-MM-DD, UTC) or an ISO date-time; `to` with a date alone includes that whole day. */
const DateParam = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, 'expected a date YYYY-MM-DD or an ISO date-time')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a valid date');

export const SESSION_LIST_SORTS = ['started', 'ended', 'time_on_task', 'messages', 'cost', 'quality', 'condition', 'status'] as const;
export const SessionListSort = z.enum(SESSION_LIST_SORTS);
export type SessionListSort = z.infer<typeof SessionListSort>;

/** Pilot sessions: shown with the others (include), hidden (exclude) or alone (only). */
export const PilotFilter = z.enum(['include', 'exclude', 'only']);
export type PilotFilter = z.infer<typeof PilotFilter>;

export const SessionListQuery = z
  .object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    pageSize: z.coerce.number().int().min(1).max(200).default(50),
    sort: SessionListSort.default('started'),
    order: z.enum(['asc', 'desc']).default('desc'),
    status: SessionStatus.optional(),
    condition: z.string().trim().min(1).max(100).optional(),
    pilot: PilotFilter.default('include'),
    /** judged: has a quality score Q; unjudged: has none. */
    judged: z.enum(['any', 'judged', 'unjudged']).default('any'),
    qualityMin: z.coerce.number().min(1).max(5).optional(),
    qualityMax: z.coerce.number().min(1).max(5).optional(),
    from: DateParam.optional(),
    to: DateParam.optional(),
    /** A pseudonym (as in the exported dataset, "p" + hex) or a session id, or the start of one. */
    q: z.string().trim().max(100).optional(),
  })
  .strict()
  .refine((q) => q.qualityMin === undefined || q.qualityMax === undefined || q.qualityMin <= q.qualityMax, {
    message: 'qualityMin must not be above qualityMax',
    path: ['qualityMin'],
  });
export type SessionListQuery = z.infer<typeof SessionListQuery>;

export const SessionListRow = z.object({
  sessionId: z.string(),
  /** The session's id in exported datasets (keyed HMAC); lets a researcher find a row seen in an export. */
  pseudonym: z.string(),
  taskId: z.string(),
  conditionId: z.string(),
  status: SessionStatus,
  step: Step,
  isPilot: z.boolean(),
  createdAt: z.number(),
  endedAt: z.number().nullable(),
  /** ms from consent to the first submission; null until submitted. */
  timeOnTaskMs: z.number().nullable(),
  messages: z.number().int(),
  userTokens: z.number().int(),
  agentTokens: z.number().int(),
  /** C = user tokens + λ·assistant tokens (λ = 0.5, design.md). */
  cost: z.number(),
  quality: z.number().nullable(),
});
export type SessionListRow = z.infer<typeof SessionListRow>;

export const SessionListPage = z.object({
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  rows: z.array(SessionListRow),
  /** True when the search text matched a platform id (looked up in the identity table; the id itself is never sent back). */
  matchedPlatformId: z.boolean().optional(),
});
export type SessionListPage = z.infer<typeof SessionListPage>;

export const DashboardQuery = z.object({ pilot: PilotFilter.default('exclude'), v: z.string().max(40).optional() }).strict();
export type DashboardQuery = z.infer<typeof DashboardQuery>;

export const DashboardData = z.object({
  studyId: z.string(),
  at: z.number(),
  pilot: PilotFilter,
  /**
   * Per UTC hour (per day when the study spans more than a week): sessions started in it, and sessions
   * that completed / timed out / declined in it. Empty buckets between the first and last are included.
   */
  enrolment: z.object({
    bucket: z.enum(['hour', 'day']),
    rows: z.array(z.object({ at: z.number(), started: z.number(), completed: z.number(), timedOut: z.number(), declined: z.number() })),
  }),
  /** Sessions per condition and outcome. */
  conditions: z.array(z.object({ conditionId: z.string(), status: SessionStatus, n: z.number() })),
  /** How many sessions reached each step (from the step changes; "complete" counts completed sessions only). */
  funnel: z.array(z.object({ step: Step, reached: z.number() })),
  /** One entry per session, for the time-on-task, cost, Q and Pz distributions. */
  sessions: z.array(
    z.object({
      conditionId: z.string(),
      taskId: z.string(),
      status: SessionStatus,
      timeOnTaskMs: z.number().nullable(),
      cost: z.number(),
      quality: z.number().nullable(),
      /** z(Q) − z(C) within the task among judged non-pilot sessions; null when not judged or pilot. */
      pz: z.number().nullable(),
    }),
  ),
});
export type DashboardData = z.infer<typeof DashboardData>;

/** POST /api/admin/studies/:studyId/withdrawal-preview: what a withdrawal of this platform id would delete. */
export const WithdrawalPreviewRequest = z
  .object({ participant: z.string().trim().min(1, 'must be the platform id (e.g. PROLIFIC_PID)').max(200) })
  .strict();
export type WithdrawalPreviewRequest = z.infer<typeof WithdrawalPreviewRequest>;

/** The sessions of that platform id in the study, by pseudonym (the id is not repeated back). */
export const WithdrawalPreview = z.object({
  sessions: z.array(z.object({ pseudonym: z.string(), status: z.string(), isPilot: z.boolean(), createdAt: z.number() })),
});
export type WithdrawalPreview = z.infer<typeof WithdrawalPreview>;
