/**
 * The `annotations` row (migration 011) as both engines return it, its mapping to AnnotationRecord, and the
 * column values of an upsert. Engine-neutral: `grounding` is JSON TEXT on SQLite and PostgreSQL alike.
 */
import type { AnnotationRecord } from '../contract/store';

export interface AnnotationRaw {
  session_id: string;
  turn: number;
  message_id: string | null;
  speaker: 'user' | 'agent';
  friction: string | null;
  grounding: string;
  guide_hash: string;
  requested_model: string;
  reported_model: string | null;
  provider: string;
  provider_url: string | null;
  method: AnnotationRecord['method'];
  failure_reason: string | null;
  created_at: number;
}

export const toAnnotation = (r: AnnotationRaw): AnnotationRecord => ({
  sessionId: r.session_id,
  turn: r.turn,
  messageId: r.message_id,
  speaker: r.speaker,
  friction: r.friction,
  grounding: JSON.parse(r.grounding) as string[],
  guideHash: r.guide_hash,
  requestedModel: r.requested_model,
  reportedModel: r.reported_model,
  provider: r.provider,
  providerUrl: r.provider_url,
  method: r.method,
  failureReason: r.failure_reason,
  createdAt: r.created_at,
});

/**
 * The values of an annotations upsert, in the column order of both engines' INSERT: session_id, turn,
 * message_id, speaker, friction, grounding, guide_hash, requested_model, reported_model, provider,
 * provider_url, method, failure_reason, created_at.
 */
export const annotationValues = (a: AnnotationRecord) =>
  [
    a.sessionId, a.turn, a.messageId, a.speaker, a.friction, JSON.stringify(a.grounding), a.guideHash,
    a.requestedModel, a.reportedModel, a.provider, a.providerUrl, a.method, a.failureReason, a.createdAt,
  ] as const;
