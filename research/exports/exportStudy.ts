import { mkdir, readdir } from 'node:fs/promises';
import { replyProvenance } from './replyProvenance';
import { existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { ExportSessionRow, ExportSnapshot, Store } from '../../lib/storage';
import { renderCodebook } from './codebook';
import { columnNames, datasetFiles, numericColumnNames, LIKERT_PREFIX, type DatasetFileDef, type LikertItemInfo } from './columns';
import { buildDataPackage } from './datapackage';
import { applyFreeTextSetting, sanitizePayload } from './eventPayload';
import { copyFileHashed } from './hashedCopy';
import { appVersion, buildManifest, type AuditSummary, type Manifest, type ManifestFile } from './manifest';
import { openPseudonymKey, participantTombstone, sessionPseudonym } from '../../lib/pseudonym';
import { createRedactor } from './redaction';
import { identityMatcher, sessionIdentityMatcher } from './studyRedactor';
import type { SurveyItem } from '../../common/survey';
import { deriveIntegrity, finalTextChars, raisedFlags, type IntegrityMeasures } from '../../common/integrityFlags';
import type { FreeTextExport } from '../../common/study';
import { csvWriter, jsonlWriter, textFile, type RowWriter, type WrittenFile } from './writers';
import { preregistrationFile } from '../../lib/preregistration/lock';
import { sessionGroupColumns, soloMessageColumns, writeGroups } from './groupExport';
import { judgeSampleCells } from './judgeSampleCells';

/**
 * Writes one study's dataset in the layout of design.md (contract) in a single streaming pass over
 * the sessions: each session's rows go to every file before the next session is read, so memory holds
 * one session at a time (plus the identity matcher, which grows with the number of identities).
 */

export interface ExportOptions {
  /** The study's store (either engine): the export reads one consistent snapshot of it. */
  store: Store;
  /** Holds the key for pseudonyms and tombstones, and the uploaded files (DATA_DIR). */
  dataDir: string;
  studyId: string;
  outDir: string;
  includePilot: boolean;
  includeIdentities: boolean;
  /** Also export sessions that never answered the consent (bare-link visits, bots at the consent step); default false. */
  includeUnconsented?: boolean;
  /** The study's export.free_text setting (common/study.ts); default 'omitted'. */
  freeText?: FreeTextExport;
  /**
   * The study's survey definition: gives the likert_<item> columns in survey order with their prompts, and the
   * attention check. Without it the Likert items found in the answers are used (by id) and attention is left empty.
   */
  survey?: { items: readonly SurveyItem[] };
  /** Progress callback: sessions written so far and the total. */
  onProgress?: (done: number, total: number) => void;
  now?: () => Date;
}

export interface ExportResult {
  outDir: string;
  manifest: Manifest;
}

export class ExportError extends Error {
  override name = 'ExportError';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const CONTENT_TYPE_EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };

async function ensureEmptyDir(dir: string): Promise<void> {
  if (existsSync(dir)) {
    const entries = await readdir(dir);
    if (entries.length > 0) throw new ExportError(`--out ${dir} is not empty; choose a new folder so no old file is mixed into this dataset`);
  }
  await mkdir(dir, { recursive: true });
}

interface AttentionCheck {
  id: string;
  expected: number;
}

function likertFromSurvey(items: readonly SurveyItem[]): LikertItemInfo[] {
  return items.flatMap((i) => (i.kind === 'likert' ? [{ id: i.id, prompt: i.prompt, points: i.points }] : []));
}

function sessionRow(s: ExportSessionRow, pseudonym: string, likert: readonly LikertItemInfo[], check: AttentionCheck | null): Record<string, unknown> {
  const checkAnswer = check ? s.numericAnswers[check.id] : undefined;
  const row: Record<string, unknown> = {
    session_id: pseudonym,
    task: s.taskId,
    condition: s.conditionId,
    status: s.status,
    is_pilot: s.isPilot,
    started_at: iso(s.createdAt),
    submitted_at: iso(s.submittedAt),
    duration_s: s.submittedAt === null ? null : Math.round((s.submittedAt - s.createdAt) / 100) / 10,
    user_tokens: s.userTokens,
    agent_tokens: s.agentTokens,
    user_turns: s.userTurns,
    agent_turns: s.agentTurns,
    quality: s.quality,
    attention_check_passed: checkAnswer === undefined || !check ? null : checkAnswer === check.expected,
  };
  for (const item of likert) row[`${LIKERT_PREFIX}${item.id}`] = s.numericAnswers[item.id] ?? null;
  row.consented_at = iso(s.consentedAt);
  return row;
}

/** The sessions.csv integrity columns (SESSION_TELEMETRY_COLUMNS) of one session; all empty but the batch count without telemetry. */
function integrityColumns(m: IntegrityMeasures | null, batches: number): Record<string, unknown> {
  return {
    telemetry_batches: batches,
    paste_count: m?.pasteCount ?? null,
    pasted_chars: m?.pastedChars ?? null,
    pasted_share: m?.pastedShare ?? null,
    artifact_pasted_share: m?.artifactPastedShare ?? null,
    final_chars: m?.finalChars ?? null,
    typed_chars: m?.typedChars ?? null,
    typed_ratio: m?.typedRatio ?? null,
    key_interval_median_ms: m?.keyIntervalMedianMs ?? null,
    key_interval_mean_ms: m?.keyIntervalMeanMs ?? null,
    key_interval_sd_ms: m?.keyIntervalSdMs ?? null,
    away_count: m?.awayCount ?? null,
    away_s: m?.awayS ?? null,
    ua_device: m?.device ?? null,
    ua_browser: m?.browser ?? null,
    mostly_pasted: m?.flags.mostly_pasted ?? null,
    no_typing: m?.flags.no_typing ?? null,
    long_away: m?.flags.long_away ?? null,
    integrity_flags: m ? raisedFlags(m) : null,
  };
}

export async function exportStudy(options: ExportOptions): Promise<ExportResult> {
  const now = options.now ?? (() => new Date());
  const createdAt = now().toISOString();
  const outDir = resolve(options.outDir);
  const dataDir = resolve(options.dataDir);
  const key = await openPseudonymKey(options.store, dataDir);
  const includeUnconsented = options.includeUnconsented ?? false;
  const freeText = options.freeText ?? 'omitted';

  const reader = await options.store.openExportSnapshot();
  // Writers opened so far: a failed export closes them before it throws (the caller may delete the folder).
  const opened: Array<RowWriter<Record<string, unknown>>> = [];
  try {
    const study = await reader.study(options.studyId);
    if (!study) throw new ExportError(`no study "${options.studyId}" in ${options.store.description}`);
    await ensureEmptyDir(outDir);

    const tombstones = await reader.tombstones(options.studyId);
    const studyRedactor = createRedactor(await identityMatcher(reader.identities(options.studyId)));

    const likert = options.survey
      ? likertFromSurvey(options.survey.items)
      : (await reader.likertItemIds(options.studyId)).map((id) => ({ id, prompt: id, points: 0 }));
    const checkItem = options.survey?.items.find((i) => i.kind === 'attention_check');
    const check = checkItem?.kind === 'attention_check' ? { id: checkItem.id, expected: checkItem.expected } : null;
    const files = datasetFiles({ likertItems: likert, includeIdentities: options.includeIdentities });
    const byPath = new Map(files.map((f) => [f.path, f] as const));
    const open = (path: string): RowWriter<Record<string, unknown>> => {
      const def = byPath.get(path) as DatasetFileDef;
      const target = join(outDir, def.path);
      const writer = def.format === 'csv' ? csvWriter(target, columnNames(def), numericColumnNames(def)) : jsonlWriter(target, columnNames(def));
      opened.push(writer);
      return writer;
    };
    const sessions = open('sessions.csv');
    const messages = open('messages.jsonl');
    const events = open('events.jsonl');
    const artifacts = open('artifacts.jsonl');
    const judgements = open('judgements.csv');
    const annotations = open('annotations.csv');
    const identities = options.includeIdentities ? open('identities.csv') : null;
    const groups = open('groups.csv');
    const groupEvents = open('group_events.jsonl');
    const groupJudgements = open('group_judgements.csv');
    const groupColumns = await sessionGroupColumns(reader, options.studyId);
    const simulatedSessions = await reader.simulatedSessions(options.studyId);
    // The sessions the export keeps, by server id: group rows appear under these pseudonyms only.
    const keptPseudonyms = new Map<string, string>();

    const total = await reader.countSessions(options.studyId, options.includePilot);
    let done = 0;
    let withdrawnSessions = 0;
    let unconsentedSessions = 0;
    let freeTextAnswers = 0;
    // One manifest entry per copied upload (path, bytes, sha256): the only per-session state kept to the end.
    const artifactEntries: ManifestFile[] = [];
    const warnings: string[] = [];

    for await (const s of reader.sessions(options.studyId, options.includePilot)) {
      const identity = await reader.identity(s.id);
      if (identity?.platformUserId && tombstones.has(participantTombstone(key, options.studyId, identity.platformUserId))) {
        withdrawnSessions++;
        options.onProgress?.(++done, total);
        continue;
      }
      // A visit that never answered the consent (a bare-link visit, a bot at the consent step) gave no consent
      // and holds no science data. A decline is an answer: kept (status declined, nothing beyond it), it is the study's refusal count.
      if (s.consentedAt === null && s.status !== 'declined' && !includeUnconsented) {
        unconsentedSessions++;
        options.onProgress?.(++done, total);
        continue;
      }
      // Study-wide identity strings plus this session's own URL parameter values (whatever their shape).
      const redactor = studyRedactor.forSession(sessionIdentityMatcher(identity));
      const pseudonym = sessionPseudonym(key, s.id);
      keptPseudonyms.set(s.id, pseudonym);
      // The sessions.csv row is written after the session's other rows: its integrity columns need the final text lengths.
      let userChars = 0;

      for await (const m of reader.messages(s.id)) {
        if (m.role === 'user') userChars += m.text.length;
        await messages.write({
          session_id: pseudonym,
          seq: m.seq,
          role: m.role,
          text: redactor.redact(m.text),
          created_at: iso(m.createdAt),
          tokens: m.tokens,
          model: m.model,
          ttft_ms: m.ttftMs,
          duration_ms: m.durationMs,
          finish_reason: m.finishReason,
          interrupted: m.interrupted,
          status: m.status,
          ...replyProvenance(m, redactor.redact.bind(redactor)),
          ...soloMessageColumns(m.role),
        });
      }

      // Uploaded files: copied under artifacts/<pseudonym>/ with neutral names (the participant's file name may be personal).
      const uploadPaths = new Map<string, string>();
      const uploads = await reader.uploads(s.id);
      for (const [i, u] of uploads.entries()) {
        const rel = `artifacts/${pseudonym}/${i + 1}-${u.fieldId}.${CONTENT_TYPE_EXT[u.contentType] ?? 'bin'}`;
        const source = resolve(dataDir, u.storagePath);
        if (!source.startsWith(dataDir + sep) || !existsSync(source)) {
          if (warnings.length < 100) warnings.push(`upload file missing for ${pseudonym} field ${u.fieldId}`);
          continue;
        }
        await mkdir(join(outDir, 'artifacts', pseudonym), { recursive: true });
        const copied = await copyFileHashed(source, join(outDir, rel));
        uploadPaths.set(u.id, rel);
        artifactEntries.push({ path: rel, rows: null, bytes: copied.bytes, sha256: copied.sha256 });
      }

      for await (const e of reader.events(s.id)) {
        const survey = applyFreeTextSetting(e.type, e.payload, freeText);
        freeTextAnswers += survey.answers;
        await events.write({
          session_id: pseudonym,
          seq: e.seq,
          type: e.type,
          server_ts: e.serverTs,
          client_ts: e.clientTs,
          payload: sanitizePayload(survey.payload, { sessionId: s.id, pseudonym, redactor, uploadPaths }),
        });
      }

      const artifactVersions = await reader.artifacts(s.id);
      for (const a of artifactVersions) {
        const fields: Record<string, string> = {};
        const files: string[] = [];
        for (const [fieldId, value] of Object.entries(a.fields)) {
          const file = uploadPaths.get(value);
          if (file !== undefined) files.push(file);
          fields[fieldId] = file ?? redactor.redact(value);
        }
        await artifacts.write({ session_id: pseudonym, version: a.version, submitted_at: iso(a.submittedAt), fields, files });
      }

      const finalText = finalTextChars(userChars, artifactVersions.at(-1)?.fields ?? null, new Set(uploads.map((u) => u.id)));
      const telemetry = await reader.telemetry(s.id);
      const integrity = deriveIntegrity(telemetry?.summary ?? null, finalText);
      await sessions.write({
        ...sessionRow(s, pseudonym, likert, check),
        ...integrityColumns(integrity, telemetry?.batches ?? 0),
        ...(groupColumns.get(s.id) ?? { group_id: null, lobby_outcome: null, lobby_wait_ms: null, group_edits: null }),
        simulated: simulatedSessions.has(s.id),
      });

      for await (const j of reader.judgements(s.id)) {
        await judgements.write({ session_id: pseudonym, artifact_version: j.artifactVersion, ...judgeSampleCells(j) });
      }

      for await (const a of reader.annotations(s.id)) {
        await annotations.write({ session_id: pseudonym, turn: a.turn, speaker: a.speaker, friction: a.friction, grounding: a.grounding });
      }

      if (identities && identity) {
        const recordedAt = iso(identity.createdAt);
        const values: [string, string, string | null][] = [
          ['platform', 'platform', identity.platform],
          ['platform', 'platform_user_id', identity.platformUserId],
          ['platform', 'platform_study_id', identity.platformStudyId],
          ['platform', 'platform_session_id', identity.platformSessionId],
          ...Object.entries(identity.urlParams).map(([k, v]): [string, string, string] => ['url_param', k, v]),
        ];
        for (const [source, k, v] of values) {
          if (v !== null) await identities.write({ session_id: pseudonym, source, key: k, value: v, recorded_at: recordedAt });
        }
      }
      options.onProgress?.(++done, total);
    }

    // The locked plan and its deviations, from the same snapshot as the sessions.
    const deviations = open('deviations.csv');
    for (const d of await reader.preregistrations.deviations(options.studyId))
      await deviations.write({
        time: new Date(d.detectedAt).toISOString(),
        kind: d.kind,
        file: d.file,
        field: d.field,
        justification: d.justification,
        version: d.version,
        message: d.message,
        justified_at: d.justifiedAt === null ? null : new Date(d.justifiedAt).toISOString(),
        detected_at: new Date(d.detectedAt).toISOString(),
      });
    const preregistration = await textFile(join(outDir, 'preregistration.json'), `${JSON.stringify(await preregistrationFile(reader, options.studyId), null, 2)}\n`);
    // Room messages are redacted with the study's identity strings plus the sender's own.
    const redactGroupText = async (sessionId: string | null, text: string) =>
      studyRedactor.forSession(sessionIdentityMatcher(sessionId === null ? undefined : await reader.identity(sessionId))).redact(text);
    await writeGroups(reader, options.studyId, keptPseudonyms, redactGroupText, { groups, groupEvents, groupJudgements, messages });

    const written = new Map<string, WrittenFile>();
    for (const [path, w] of [
      ['sessions.csv', sessions],
      ['messages.jsonl', messages],
      ['events.jsonl', events],
      ['artifacts.jsonl', artifacts],
      ['judgements.csv', judgements],
      ['annotations.csv', annotations],
      ['deviations.csv', deviations],
      ['groups.csv', groups],
      ['group_events.jsonl', groupEvents],
      ['group_judgements.csv', groupJudgements],
      ...(identities ? ([['identities.csv', identities]] as const) : []),
    ] as const) {
      written.set(path, await w.close());
    }

    const context = { studyId: options.studyId, createdAt };
    const codebook = await textFile(join(outDir, 'codebook.md'), renderCodebook(files, context));
    const datapackage = await textFile(
      join(outDir, 'datapackage.json'),
      JSON.stringify(buildDataPackage(files, written, { ...context, appVersion: appVersion() }), null, 2) + '\n',
    );

    const manifestFiles: ManifestFile[] = [
      ...[...written.entries()].map(([path, w]) => ({ path, rows: w.rows, bytes: w.bytes, sha256: w.sha256 })),
      { path: 'preregistration.json', rows: null, bytes: preregistration.bytes, sha256: preregistration.sha256 },
      { path: 'codebook.md', rows: null, bytes: codebook.bytes, sha256: codebook.sha256 },
      { path: 'datapackage.json', rows: null, bytes: datapackage.bytes, sha256: datapackage.sha256 },
      ...artifactEntries,
    ];
    const rows = (p: string) => written.get(p)?.rows ?? 0;
    const audit = await auditSummary(reader, options.studyId);
    const manifest = buildManifest({
      createdAt,
      filters: { studyId: options.studyId, includePilot: options.includePilot, includeIdentities: options.includeIdentities, includeUnconsented },
      study: { title: study.title, status: study.status },
      counts: {
        sessions: rows('sessions.csv'),
        messages: rows('messages.jsonl'),
        events: rows('events.jsonl'),
        artifacts: rows('artifacts.jsonl'),
        artifact_files: artifactEntries.length,
        judgements: rows('judgements.csv'),
        group_judgements: rows('group_judgements.csv'),
        annotations: rows('annotations.csv'),
        identities: options.includeIdentities ? rows('identities.csv') : null,
        excluded_pilot_sessions: options.includePilot ? 0 : await reader.countPilotSessions(options.studyId),
        excluded_unconsented_sessions: unconsentedSessions,
        withdrawn_participants: tombstones.size,
      },
      freeText: { setting: freeText, answers: freeTextAnswers },
      files: manifestFiles,
      redactions: studyRedactor.counts,
      audit,
    });
    if (withdrawnSessions > 0 && warnings.length < 100) warnings.push(`${withdrawnSessions} session(s) of withdrawn participants left out`);
    const finalManifest = warnings.length > 0 ? { ...manifest, warnings } : manifest;
    await textFile(join(outDir, 'manifest.json'), JSON.stringify(finalManifest, null, 2) + '\n');
    return { outDir, manifest: finalManifest };
  } catch (err) {
    await Promise.all(opened.map((w) => w.abort()));
    throw err;
  } finally {
    await reader.close();
  }
}

async function auditSummary(snapshot: ExportSnapshot, studyId: string): Promise<AuditSummary> {
  const counts = await snapshot.auditCounts(studyId);
  return {
    total: counts.total,
    byAction: counts.byAction,
    firstAt: iso(counts.firstAt),
    lastAt: iso(counts.lastAt),
    recent: (await snapshot.auditList({ studyId, limit: 20 })).map((e) => ({ at: new Date(e.at).toISOString(), actor: e.actor, action: e.action })),
  };
}
