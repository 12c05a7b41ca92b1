/**
 * The `audit_log` row (migration 020) as both engines return it (`details` is JSON TEXT on each; `id` an
 * INTEGER / BIGINT identity, a JS number on both), its mapping, and the per-action counts summary.
 */
import type { AuditCounts, AuditEntry } from '../contract/store';

export interface AuditRaw {
  id: number;
  at: number;
  actor: string;
  action: string;
  study_id: string | null;
  details: string;
}

export const toAuditEntry = (r: AuditRaw): AuditEntry => ({
  id: r.id,
  at: r.at,
  actor: r.actor,
  action: r.action,
  studyId: r.study_id,
  details: JSON.parse(r.details) as Record<string, unknown>,
});

/** What an audit append takes (the id is the database's). */
export interface AuditAppend {
  at: number;
  actor: string;
  action: string;
  studyId: string | null;
  details?: Record<string, unknown>;
}

/** Insert values in the column order at, actor, action, study_id, details. */
export const auditValues = (entry: AuditAppend) => [entry.at, entry.actor, entry.action, entry.studyId, JSON.stringify(entry.details ?? {})] as const;

/** The bounds of `list`'s limit (default 100). */
export const auditListLimit = (limit: number | undefined): number => Math.min(Math.max(limit ?? 100, 1), 10_000);

/** One row of `SELECT action, COUNT(*) AS n, MIN(at) AS first, MAX(at) AS last … GROUP BY action`. */
export interface AuditActionCountRaw {
  action: string;
  n: number;
  first: number;
  last: number;
}

export function toAuditCounts(rows: readonly AuditActionCountRaw[]): AuditCounts {
  const byAction: Record<string, number> = {};
  let total = 0;
  let firstAt: number | null = null;
  let lastAt: number | null = null;
  for (const r of rows) {
    byAction[r.action] = r.n;
    total += r.n;
    firstAt = firstAt === null ? r.first : Math.min(firstAt, r.first);
    lastAt = lastAt === null ? r.last : Math.max(lastAt, r.last);
  }
  return { total, byAction, firstAt, lastAt };
}
