/**
 * Store.submitArtifact on PostgreSQL: one call of tandem_submit_artifact (migration 038), so a submission holds a
 * pooled connection for one round trip instead of a transaction of up to nine.
 */
import type { ArtifactSubmission, ArtifactSubmitRefusal, ArtifactSubmitResult } from '../contract/artifactSubmit';
import type { Runner } from './connection';
import { toSessionRow, type SessionRaw } from '../rows/sessions';

interface Answer {
  outcome: ArtifactSubmitResult['outcome'];
  reason?: ArtifactSubmitRefusal;
  version?: number;
  session?: SessionRaw;
}

const CALL = 'SELECT tandem_submit_artifact($1, $2, $3, $4, $5, $6, $7, $8) AS answer';

export async function submitArtifact(db: Runner, w: ArtifactSubmission): Promise<ArtifactSubmitResult> {
  const row = await db.one<{ answer: string }>(CALL, [
    w.sessionId,
    JSON.stringify(w.fields),
    w.clientTs,
    w.now,
    w.timeLimitMs,
    w.after.map((e) => e.type),
    w.after.map((e) => JSON.stringify(e.payload ?? null)),
    w.after.map((e) => e.clientTs),
  ]);
  const a = JSON.parse(row!.answer) as Answer;
  switch (a.outcome) {
    case 'not_found':
      return { outcome: 'not_found' };
    case 'submitted':
      return { outcome: 'submitted', version: a.version!, session: toSessionRow(a.session!) };
    case 'refused':
      return { outcome: 'refused', reason: a.reason!, session: toSessionRow(a.session!) };
  }
}
