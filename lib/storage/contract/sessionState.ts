/**
 * The store contract of a participant's session snapshot (Store.readSessionState): every row the
 * `session:state` ack is built from (server/services/sessionState.ts), read at once, so PostgreSQL answers it with one
 * statement on one connection (instead of six statements on up to six pooled connections) and SQLite with
 * one synchronous call. One statement is also one consistent view of the session.
 */
import type { SessionRow } from './sessions';
import type { ArtifactDraftRow, ArtifactVersionRow, UploadRow } from './submissions';
import type { MessageRow } from './trajectory';

export interface SessionStateRows {
  session: SessionRow;
  /** The current artifact draft, if any. */
  draft: ArtifactDraftRow | undefined;
  /** In trajectory order (as messages.listForSession). */
  messages: MessageRow[];
  /** In upload order (as uploads.listForSession). */
  uploads: UploadRow[];
  /** Submitted artifact versions, 1, 2, … (as artifacts.listVersions). */
  versions: ArtifactVersionRow[];
  /** Whether the session has survey answers (as surveyAnswers.hasAnswers). */
  surveySubmitted: boolean;
}
