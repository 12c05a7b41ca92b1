/**
 * Storage for the judge.
 *
 * - JudgementsRepository: the `judgements` table of the study database (migration 010; the
 *   `images` column, migration 012).
 */
import type { SqliteDatabase } from '../../database';
import type { JudgementRecord, JudgementsRepo, SessionQualityRecord } from '../../storeInterface';
import type { Sync } from '../sync';
import { imagesColumn, parseImagesColumn } from '../../judgementImages';

// Engine-neutral (both stores read and write the column the same way); re-exported for existing imports.
export { imagesColumn, parseImagesColumn };

interface JudgementRaw {
  session_id: string;
  artifact_version: number;
  rubric_id: string;
  rubric_version: string;
  rubric_hash: string;
  template_hash: string;
  parser_version: string;
  sample: number;
  requested_model: string;
  reported_model: string | null;
  system_fingerprint: string | null;
  provider: string;
  provider_url: string | null;
  params: string;
  seed: number;
  score: number | null;
  parse_ok: number;
  failure_reason: string | null;
  raw_reply: string | null;
  reask_reply: string | null;
  reasked: number;
  usage: string | null;
  latency_ms: number;
  cached: number;
  cache_key: string;
  transport_error: string | null;
  created_at: number;
  images: string | null;
}

const toJudgement = (r: JudgementRaw): JudgementRecord => ({
  sessionId: r.session_id,
  artifactVersion: r.artifact_version,
  rubricId: r.rubric_id,
  rubricVersion: r.rubric_version,
  rubricHash: r.rubric_hash,
  templateHash: r.template_hash,
  parserVersion: r.parser_version,
  sample: r.sample,
  requestedModel: r.requested_model,
  reportedModel: r.reported_model,
  systemFingerprint: r.system_fingerprint,
  provider: r.provider,
  providerUrl: r.provider_url,
  parameters: JSON.parse(r.params) as JudgementRecord['parameters'],
  seed: r.seed,
  score: r.score,
  parseOk: r.parse_ok === 1,
  failureReason: r.failure_reason,
  rawReply: r.raw_reply,
  reaskReply: r.reask_reply,
  reasked: r.reasked === 1,
  usage: r.usage === null ? null : (JSON.parse(r.usage) as JudgementRecord['usage']),
  latencyMs: r.latency_ms,
  cached: r.cached === 1,
  cacheKey: r.cache_key,
  transportError: r.transport_error === null ? null : (JSON.parse(r.transport_error) as JudgementRecord['transportError']),
  ...(r.images === null ? {} : { images: parseImagesColumn(r.images, `session ${r.session_id} sample ${r.sample}`) }),
  createdAt: r.created_at,
});

/** The `judgements` and `judge_quality` tables (migrations 010 and 012). */
export class JudgementsRepository implements Sync<JudgementsRepo> {
  constructor(private readonly db: SqliteDatabase) {}

  /** Inserts a sample, replacing an earlier one for the same session/version/rubric/model/sample. */
  upsert(j: JudgementRecord): void {
    this.db
      .prepare(
        `INSERT INTO judgements (session_id, artifact_version, rubric_id, rubric_version, rubric_hash, template_hash,
           parser_version, sample, requested_model, reported_model, system_fingerprint, provider, provider_url, params,
           seed, score, parse_ok, failure_reason, raw_reply, reask_reply, reasked, usage, latency_ms, cached, cache_key,
           transport_error, created_at, images)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (session_id, artifact_version, rubric_id, requested_model, sample) DO UPDATE SET
           rubric_version = excluded.rubric_version, rubric_hash = excluded.rubric_hash,
           template_hash = excluded.template_hash, parser_version = excluded.parser_version,
           reported_model = excluded.reported_model, system_fingerprint = excluded.system_fingerprint,
           provider = excluded.provider, provider_url = excluded.provider_url, params = excluded.params,
           seed = excluded.seed, score = excluded.score, parse_ok = excluded.parse_ok,
           failure_reason = excluded.failure_reason, raw_reply = excluded.raw_reply, reask_reply = excluded.reask_reply,
           reasked = excluded.reasked, usage = excluded.usage, latency_ms = excluded.latency_ms, cached = excluded.cached,
           cache_key = excluded.cache_key, transport_error = excluded.transport_error, created_at = excluded.created_at,
           images = excluded.images`,
      )
      .run(
        j.sessionId, j.artifactVersion, j.rubricId, j.rubricVersion, j.rubricHash, j.templateHash,
        j.parserVersion, j.sample, j.requestedModel, j.reportedModel, j.systemFingerprint, j.provider, j.providerUrl,
        JSON.stringify(j.parameters), j.seed, j.score, j.parseOk ? 1 : 0, j.failureReason, j.rawReply, j.reaskReply,
        j.reasked ? 1 : 0, j.usage === null ? null : JSON.stringify(j.usage), j.latencyMs, j.cached ? 1 : 0, j.cacheKey,
        j.transportError === null ? null : JSON.stringify(j.transportError), j.createdAt, imagesColumn(j.images),
      );
  }

  listForSession(sessionId: string): JudgementRecord[] {
    return (
      this.db
        .prepare('SELECT * FROM judgements WHERE session_id = ? ORDER BY artifact_version, rubric_id, requested_model, sample')
        .all(sessionId) as JudgementRaw[]
    ).map(toJudgement);
  }

  /** Every sample of a study's sessions, ordered by session then sample (for exports). */
  listForStudy(studyId: string): JudgementRecord[] {
    return (
      this.db
        .prepare(
          `SELECT j.* FROM judgements j JOIN sessions s ON s.id = j.session_id
           WHERE s.study_id = ? ORDER BY s.created_at, j.session_id, j.artifact_version, j.rubric_id, j.requested_model, j.sample`,
        )
        .all(studyId) as JudgementRaw[]
    ).map(toJudgement);
  }

  setQuality(q: SessionQualityRecord): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO judge_quality (session_id, artifact_version, rubric_id, rubric_hash, requested_model, quality,
           samples, parsed, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(q.sessionId, q.artifactVersion, q.rubricId, q.rubricHash, q.requestedModel, q.quality, q.samples, q.parsed, q.updatedAt);
  }

  getQuality(sessionId: string): SessionQualityRecord | undefined {
    const r = this.db.prepare('SELECT * FROM judge_quality WHERE session_id = ?').get(sessionId) as
      | { session_id: string; artifact_version: number; rubric_id: string; rubric_hash: string; requested_model: string; quality: number | null; samples: number; parsed: number; updated_at: number }
      | undefined;
    return (
      r && {
        sessionId: r.session_id,
        artifactVersion: r.artifact_version,
        rubricId: r.rubric_id,
        rubricHash: r.rubric_hash,
        requestedModel: r.requested_model,
        quality: r.quality,
        samples: r.samples,
        parsed: r.parsed,
        updatedAt: r.updated_at,
      }
    );
  }
}
