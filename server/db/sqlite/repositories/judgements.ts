/**
 * Storage for the judge.
 *
 * - ModelReplyCache: a standalone SQLite file (<dataDir or dataset-dir>/.judge-cache.sqlite) of
 *   completed model replies for the judge and the annotator, keyed by a hash of everything that
 *   determines the reply plus the sample index. Only completed replies are stored (callers never
 *   put transport failures), so a rerun re-parses without new calls.
 * - JudgementsRepository: the `judgements` table of the study database (migration 010; the
 *   `images` column, migration 012).
 */
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { AttachedImage } from '../../judge/judgeImages';
import type { JudgeSample } from '../../judge/runJudge';
import type { SqliteDatabase } from '../database';

export interface CachedReply {
  key: string;
  purpose: string;
  /** JSON of the request that produced the reply (messages, model, parameters), for audit. */
  requestJson: string;
  /** JSON of the CompletionResult as the provider returned it. */
  resultJson: string;
  createdAt: number;
}

export class ModelReplyCache {
  private readonly getStmt;
  private readonly putStmt;
  private readonly countStmt;
  private readonly linkStmt;

  private constructor(private readonly db: SqliteDatabase) {
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TABLE IF NOT EXISTS reply_cache (
      key TEXT PRIMARY KEY,
      purpose TEXT NOT NULL,
      request_json TEXT NOT NULL,
      result_json TEXT NOT NULL,
      created_at INTEGER NOT NULL
    ) STRICT;
    -- Which sessions' text each cached reply was made from, so a withdrawal can purge them.
    CREATE TABLE IF NOT EXISTS reply_cache_sessions (
      key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      PRIMARY KEY (key, session_id)
    ) STRICT`);
    this.linkStmt = db.prepare('INSERT OR IGNORE INTO reply_cache_sessions (key, session_id) VALUES (?, ?)');
    this.getStmt = db.prepare<[string], { key: string; purpose: string; request_json: string; result_json: string; created_at: number }>(
      'SELECT key, purpose, request_json, result_json, created_at FROM reply_cache WHERE key = ?',
    );
    this.putStmt = db.prepare('INSERT OR REPLACE INTO reply_cache (key, purpose, request_json, result_json, created_at) VALUES (?, ?, ?, ?, ?)');
    this.countStmt = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM reply_cache');
  }

  static open(file: string): ModelReplyCache {
    return new ModelReplyCache(new Database(file));
  }

  get(key: string): CachedReply | undefined {
    const row = this.getStmt.get(key);
    if (!row) return undefined;
    return { key: row.key, purpose: row.purpose, requestJson: row.request_json, resultJson: row.result_json, createdAt: row.created_at };
  }

  put(entry: CachedReply): void {
    this.putStmt.run(entry.key, entry.purpose, entry.requestJson, entry.resultJson, entry.createdAt);
  }

  /** Records that `sessionId`'s data went into the cached reply `key`. */
  linkSession(key: string, sessionId: string): void {
    this.linkStmt.run(key, sessionId);
  }

  /**
   * Deletes every cached reply made from any of these sessions (for withdrawals: prompts hold their
   * text). Returns the number of replies deleted.
   */
  forgetSessions(sessionIds: readonly string[]): number {
    const keysOf = this.db.prepare<[string], { key: string }>('SELECT key FROM reply_cache_sessions WHERE session_id = ?');
    const delReply = this.db.prepare('DELETE FROM reply_cache WHERE key = ?');
    const delLinks = this.db.prepare('DELETE FROM reply_cache_sessions WHERE key = ?');
    let deleted = 0;
    this.db.transaction(() => {
      for (const id of sessionIds) {
        for (const { key } of keysOf.all(id)) {
          deleted += delReply.run(key).changes;
          delLinks.run(key);
        }
      }
    })();
    return deleted;
  }

  count(): number {
    return this.countStmt.get()?.n ?? 0;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * A judge sample as stored in the study database: server/judge/runJudge.ts JudgeSample plus the
 * artifact version it scored, with createdAt as ms since the epoch. `images` is present exactly
 * when the sample was judged with `--images attach` (column NULL otherwise).
 */
export interface JudgementRecord extends Omit<JudgeSample, 'createdAt'> {
  artifactVersion: number;
  createdAt: number;
}

export interface SessionQualityRecord {
  sessionId: string;
  artifactVersion: number;
  rubricId: string;
  rubricHash: string;
  requestedModel: string;
  quality: number | null;
  samples: number;
  parsed: number;
  updatedAt: number;
}

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

/** One entry of the `images` column: what the judge recorded about an attached image (never its bytes). */
const AttachedImageSchema = z.strictObject({
  field: z.string().min(1),
  mediaType: z.string().min(1),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits'),
}) satisfies z.ZodType<AttachedImage>;
const AttachedImagesSchema = z.array(AttachedImageSchema);

/**
 * The `images` column's text for a sample: NULL without a list (describe mode), else the JSON array.
 * Only the four audit fields are kept, so an image loaded for a call (which also holds its base64
 * bytes) can never put the bytes in the database.
 */
export function imagesColumn(images: readonly AttachedImage[] | undefined): string | null {
  if (images === undefined) return null;
  return JSON.stringify(images.map(({ field, mediaType, bytes, sha256 }): AttachedImage => ({ field, mediaType, bytes, sha256 })));
}

/**
 * Reads the `images` column (migration 012); `where` names the row in the error. Throws on text that
 * is not a JSON array of {field, mediaType, bytes, sha256}, rather than handing on a malformed record.
 */
export function parseImagesColumn(text: string, where: string): AttachedImage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`judgements.images of ${where} is not JSON: ${(err as Error).message}`);
  }
  const parsed = AttachedImagesSchema.safeParse(json);
  if (!parsed.success) throw new Error(`judgements.images of ${where} is not a list of {field, mediaType, bytes, sha256}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
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
export class JudgementsRepository {
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
