/**
 * The `judgements` and `judge_quality` rows (migrations 010 and 012) as both engines return them, their
 * mapping to the store's records, and the column values of an upsert. Engine-neutral: on SQLite and on
 * PostgreSQL flags are INTEGER 0/1, JSON columns TEXT and BIGINT a JS number (the pool's type parser,
 * postgres/connection.ts), so one raw shape serves both.
 */
import { imagesColumn, parseImagesColumn } from './judgementImages';
import type { JudgementRecord, SessionQualityRecord } from '../contract/store';

export interface JudgementRaw {
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

export const toJudgement = (r: JudgementRaw): JudgementRecord => ({
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

/** The columns of a judgements upsert, in the order of judgementValues. */
const JUDGEMENT_COLUMNS = [
  'session_id', 'artifact_version', 'rubric_id', 'rubric_version', 'rubric_hash', 'template_hash', 'parser_version', 'sample',
  'requested_model', 'reported_model', 'system_fingerprint', 'provider', 'provider_url', 'params', 'seed', 'score', 'parse_ok',
  'failure_reason', 'raw_reply', 'reask_reply', 'reasked', 'usage', 'latency_ms', 'cached', 'cache_key', 'transport_error',
  'created_at', 'images',
] as const;
/** A sample's identity: an upsert with the same key replaces the earlier sample. */
const JUDGEMENT_KEY: readonly string[] = ['session_id', 'artifact_version', 'rubric_id', 'requested_model', 'sample'];

/**
 * The judgements upsert (standard SQL, the same on both engines but for the placeholders: `placeholder(i)`
 * gives the engine's for the i-th value, 1-based): inserts a sample, replacing every non-key column of an
 * earlier one with the same key.
 */
export function judgementUpsertSql(placeholder: (i: number) => string, table: 'judgements' | 'group_judgements' = 'judgements'): string {
  // group_judgements (migration 031) has the same columns with group_id, doc_version for session_id, artifact_version.
  const rename = (c: string) => (table === 'judgements' ? c : c === 'session_id' ? 'group_id' : c === 'artifact_version' ? 'doc_version' : c);
  const columns = JUDGEMENT_COLUMNS.map(rename);
  const key = JUDGEMENT_KEY.map(rename);
  const updates = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`);
  return `INSERT INTO ${table} (${columns.join(', ')})
    VALUES (${columns.map((_, i) => placeholder(i + 1)).join(', ')})
    ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

/** The values of a judgements upsert, in the order of JUDGEMENT_COLUMNS. */
export const judgementValues = (j: JudgementRecord) =>
  [
    j.sessionId, j.artifactVersion, j.rubricId, j.rubricVersion, j.rubricHash, j.templateHash,
    j.parserVersion, j.sample, j.requestedModel, j.reportedModel, j.systemFingerprint, j.provider, j.providerUrl,
    JSON.stringify(j.parameters), j.seed, j.score, j.parseOk ? 1 : 0, j.failureReason, j.rawReply, j.reaskReply,
    j.reasked ? 1 : 0, j.usage === null ? null : JSON.stringify(j.usage), j.latencyMs, j.cached ? 1 : 0, j.cacheKey,
    j.transportError === null ? null : JSON.stringify(j.transportError), j.createdAt, imagesColumn(j.images),
  ] as const;

// One value per column: the compiler fails here when a column is added to one list and not the other.
true satisfies (ReturnType<typeof judgementValues>['length'] extends (typeof JUDGEMENT_COLUMNS)['length'] ? true : false);

export interface SessionQualityRaw {
  session_id: string;
  artifact_version: number;
  rubric_id: string;
  rubric_hash: string;
  requested_model: string;
  quality: number | null;
  samples: number;
  parsed: number;
  updated_at: number;
}

export const toSessionQuality = (r: SessionQualityRaw): SessionQualityRecord => ({
  sessionId: r.session_id,
  artifactVersion: r.artifact_version,
  rubricId: r.rubric_id,
  rubricHash: r.rubric_hash,
  requestedModel: r.requested_model,
  quality: r.quality,
  samples: r.samples,
  parsed: r.parsed,
  updatedAt: r.updated_at,
});

/** The values of a judge_quality upsert, in the column order of both engines' INSERT. */
export const sessionQualityValues = (q: SessionQualityRecord) =>
  [q.sessionId, q.artifactVersion, q.rubricId, q.rubricHash, q.requestedModel, q.quality, q.samples, q.parsed, q.updatedAt] as const;
