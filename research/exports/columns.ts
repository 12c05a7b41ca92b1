/**
 * The single source of column meanings for every file of the dataset layout (contract in design.md).
 * The exporter writes exactly these columns in this order; codebook.md and datapackage.json are
 * generated from the same definitions, so documentation cannot drift from the data.
 */
import type { ColumnDef } from './columnDef';
import { REPLY_PROVENANCE_COLUMNS } from './replyProvenance';

import { GROUP_COLUMNS, GROUP_EVENT_COLUMNS, groupJudgementColumns, MESSAGE_GROUP_COLUMNS, SESSION_GROUP_COLUMNS, SESSION_GROUP_EDIT_COLUMNS } from './groupColumns';
export type { ColumnDef, ColumnType } from './columnDef';

export type FileFormat = 'csv' | 'jsonl';

export interface DatasetFileDef {
  /** Path inside the dataset folder. */
  path: string;
  /** Frictionless resource name. */
  name: string;
  format: FileFormat;
  /** What one row stands for. */
  row: string;
  description: string;
  columns: readonly ColumnDef[];
  /** True for identities.csv: personal data, written only on request. */
  personal?: boolean;
}

/**
 * Semantic version of this layout: 1.1.0 added judgements.csv `images`, 1.2.0 sessions.csv `consented_at`,
 * 1.3.0 the sessions.csv integrity-telemetry columns (telemetry_batches … integrity_flags), 1.4.0 the files
 * preregistration.json and deviations.csv, 1.5.0 deviations.csv's contract columns first (time … justification;
 * detected_at kept after them), 1.6.0 sessions.csv `group_edits` and `simulated`, 1.7.0 the file group_judgements.csv
 * and groups.csv `quality` (columns and files added; readers of earlier versions still work).
 */
export const SCHEMA_VERSION = '1.7.0';

/** sessions.csv's last column (1.6.0): sessions a simulator played (migration 030). */
export const SESSION_SIMULATION_COLUMNS: readonly ColumnDef[] = [
  {
    name: 'simulated',
    type: 'boolean',
    description:
      'true when the session was played by the simulator (npm run simulate --agent-participants: an LLM or the offline demo model in the participant\'s seat), flagged at join in a pilot study. Kept in the dataset; npm run analyze leaves these sessions out unless --include-simulated.',
  },
];

const sessionId: ColumnDef = {
  name: 'session_id',
  type: 'string',
  description: 'Pseudonymous session id (keyed HMAC of the server id; the key never leaves the server). Joins all files.',
};

/** The Likert columns follow the fixed ones, one per Likert survey item: likert_<item id>. */
export const LIKERT_PREFIX = 'likert_';

export const SESSION_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'task', type: 'string', description: 'Task id from the study definition.' },
  { name: 'condition', type: 'string', description: 'Condition id (assistant configuration) the session was assigned to.' },
  {
    name: 'status',
    type: 'string',
    values: ['active', 'completed', 'declined', 'timed_out'],
    description: 'Session outcome at export time: completed (artifact and survey submitted), declined (consent refused), timed_out (the time limit, or released by a group lobby: then lobby_outcome is released), or still active.',
  },
  { name: 'is_pilot', type: 'boolean', description: 'True when the session started while the study was in pilot mode (pilot sessions are exported only with --include-pilot, so without it every row is false).' },
  { name: 'started_at', type: 'datetime', description: 'When the session was created (ISO 8601, UTC).' },
  { name: 'submitted_at', type: 'datetime', nullable: true, description: 'When the last artifact version was submitted (ISO 8601, UTC); empty if never.' },
  {
    name: 'duration_s',
    type: 'number',
    nullable: true,
    unit: 'seconds',
    description: 'Seconds from session start to artifact submission; empty if never submitted.',
  },
  { name: 'user_tokens', type: 'integer', unit: 'tokens (o200k_base)', description: 'Sum of tokens in all participant messages.' },
  { name: 'agent_tokens', type: 'integer', unit: 'tokens (o200k_base)', description: 'Sum of tokens in all assistant messages (including partial replies).' },
  { name: 'user_turns', type: 'integer', description: 'Number of participant messages.' },
  { name: 'agent_turns', type: 'integer', description: 'Number of assistant messages (including stopped, interrupted and failed replies).' },
  {
    name: 'quality',
    type: 'number',
    nullable: true,
    description: 'Judge quality score Q (1–5): median of the parsed judge samples for the latest artifact; empty if not judged.',
  },
  {
    name: 'attention_check_passed',
    type: 'boolean',
    nullable: true,
    description: "Whether the survey's attention-check item was answered as expected; empty if the survey has none or was not answered.",
  },
];

export function likertColumn(itemId: string, prompt: string, points: number): ColumnDef {
  const scale = points > 0 ? `1–${points}` : 'Likert';
  return {
    name: `${LIKERT_PREFIX}${itemId}`,
    type: 'integer',
    nullable: true,
    description: `Post-task survey (${scale}): "${prompt}". Empty if not answered.`,
  };
}

export const MESSAGE_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'seq', type: 'integer', description: 'Order of the message within the session (1-based).' },
  { name: 'role', type: 'string', values: ['user', 'assistant', 'system'], description: 'Who wrote the message (system: a platform notice in a group room).' },
  { name: 'text', type: 'string', description: 'Message text with personal data replaced by [REDACTED:<kind>].' },
  { name: 'created_at', type: 'datetime', description: 'When the server stored the message (ISO 8601, UTC).' },
  { name: 'tokens', type: 'integer', nullable: true, unit: 'tokens (o200k_base)', description: 'Token count of the text (tokenizer o200k_base).' },
  { name: 'model', type: 'string', nullable: true, description: 'Exact model that produced an assistant message; null for participant messages.' },
  { name: 'ttft_ms', type: 'integer', nullable: true, unit: 'ms', description: 'Time to first streamed token of an assistant reply.' },
  { name: 'duration_ms', type: 'integer', nullable: true, unit: 'ms', description: 'Time from request to end of an assistant reply.' },
  { name: 'finish_reason', type: 'string', nullable: true, description: "Provider finish reason (stop, length, aborted, error, …)." },
  { name: 'interrupted', type: 'boolean', description: 'True when the reply stream died before it finished.' },
  {
    name: 'status',
    type: 'string',
    values: ['complete', 'stopped', 'interrupted', 'error'],
    description: 'complete, stopped (participant pressed Stop), interrupted (stream died) or error (nothing usable arrived).',
  },
  ...REPLY_PROVENANCE_COLUMNS,
  ...MESSAGE_GROUP_COLUMNS,
];

export const EVENT_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'seq', type: 'integer', description: 'Position in the session trajectory (append-only, gap-free per session).' },
  {
    name: 'type',
    type: 'string',
    description:
      'Event type (e.g. session_created, consent, step, message, reply, draft, submit, survey, telemetry; screening.answered: a group condition\'s screening answers, given before the lobby, payload {surveyId: "group-screening", answers: {question id: option value}}).',
  },
  { name: 'server_ts', type: 'integer', unit: 'ms since epoch (UTC)', description: 'Server time when the event was stored.' },
  { name: 'client_ts', type: 'integer', nullable: true, unit: 'ms since epoch (browser clock)', description: 'Browser time sent with the event, if any.' },
  {
    name: 'payload',
    type: 'object',
    description:
      'Event details; strings redacted, identity fields (URL parameters, tokens, platform ids) removed, session ids pseudonymised. ' +
      'Free-text survey answers (survey.submitted) are "[OMITTED:free_text]" unless the study sets export.free_text: redacted.',
  },
];

export const ARTIFACT_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'version', type: 'integer', description: 'Submission number within the session (1 = first).' },
  { name: 'submitted_at', type: 'datetime', description: 'When this version was submitted (ISO 8601, UTC).' },
  {
    name: 'fields',
    type: 'object',
    description: 'Artifact field values keyed by field id (text redacted). Image fields name their file under files.',
  },
  {
    name: 'files',
    type: 'array',
    description: 'Paths (relative to the dataset folder, under artifacts/) of files uploaded for this version.',
  },
];

export const JUDGEMENT_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'rubric_id', type: 'string', description: 'Rubric used (rubrics/<id>.yaml).' },
  { name: 'rubric_hash', type: 'string', description: 'Hash of the rubric text, so changed rubrics are distinguishable.' },
  { name: 'model', type: 'string', description: 'Exact judge model.' },
  { name: 'sample', type: 'integer', description: 'Sample index (0-based) among the k judge samples.' },
  { name: 'score', type: 'integer', nullable: true, description: 'Raw score 1–5 parsed from the judge reply; empty if unparsable.' },
  { name: 'parse_ok', type: 'boolean', description: 'Whether a score could be parsed from the reply.' },
  { name: 'cached', type: 'boolean', description: 'Whether the sample came from the judge cache rather than a new call.' },
  { name: 'artifact_version', type: 'integer', description: 'Artifact version (artifacts.jsonl) that was judged.' },
  {
    name: 'images',
    type: 'string',
    nullable: true,
    description:
      'Images shown to the judge model (judge --images attach), as a JSON array of {field, mediaType, bytes, sha256}: the artifact field id, ' +
      'the media type, the size in bytes and the sha256 of the image, which is the sha256 manifest.json lists for that file under artifacts/. ' +
      '[] when the judge ran with --images attach but attached nothing (no image field, or the image could not be read: then score is empty). ' +
      'Empty when the judge saw text only (--images describe, or a sample stored before the judge recorded images).',
  },
];

export const ANNOTATION_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'turn', type: 'integer', description: 'Utterance index within the session (0-based).' },
  { name: 'speaker', type: 'string', values: ['user', 'agent'], description: 'Who spoke the utterance.' },
  { name: 'friction', type: 'string', description: 'Friction label of the utterance (none if no friction).' },
  { name: 'grounding', type: 'array', description: 'Grounding acts of the utterance, ";"-joined.' },
];

export const IDENTITY_COLUMNS: readonly ColumnDef[] = [
  sessionId,
  { name: 'source', type: 'string', description: 'Where the value came from (e.g. url_param).' },
  { name: 'key', type: 'string', description: 'Parameter name (e.g. PROLIFIC_PID).' },
  { name: 'value', type: 'string', description: 'Raw value: PERSONAL DATA.' },
  { name: 'recorded_at', type: 'datetime', description: 'When the value was recorded (ISO 8601, UTC).' },
];

export interface LikertItemInfo {
  id: string;
  prompt: string;
  points: number;
}

/** Session columns added after the Likert ones (at the end, so positional readers of older versions still work). */
export const SESSION_TRAILING_COLUMNS: readonly ColumnDef[] = [
  {
    name: 'consented_at',
    type: 'datetime',
    nullable: true,
    description:
      'When the participant accepted the consent (ISO 8601, UTC); empty for a declined session. Visits that never answered the consent ' +
      '(bare-link visits, bots at the consent step) are exported only with --include-unconsented, with this empty; manifest.json ' +
      'counts those left out (excluded_unconsented_sessions).',
  },
];

const NO_TELEMETRY = 'Empty when the session sent no telemetry (telemetry_batches 0).';
const FLAG_NOTE = 'A screening aid for a closer look, not proof; thresholds in common/integrityFlags.ts and docs/data-protection.md.';

/** Integrity telemetry (common/integrityFlags.ts), after consented_at. */
export const SESSION_TELEMETRY_COLUMNS: readonly ColumnDef[] = [
  { name: 'telemetry_batches', type: 'integer', description: 'Integrity-telemetry batches the browser sent (0: none, e.g. a session from before telemetry or a client without it).' },
  { name: 'paste_count', type: 'integer', nullable: true, description: `Paste events into the chat box and the artifact's text fields. ${NO_TELEMETRY}` },
  { name: 'pasted_chars', type: 'integer', nullable: true, unit: 'characters', description: `Characters pasted into the chat box and the artifact's text fields (the pasted text itself is never recorded). ${NO_TELEMETRY}` },
  {
    name: 'pasted_share',
    type: 'number',
    nullable: true,
    description: `pasted_chars / final_chars, capped at 1 (text pasted and later deleted still counts). Empty without telemetry or final text.`,
  },
  {
    name: 'artifact_pasted_share',
    type: 'number',
    nullable: true,
    description: 'Characters pasted into the artifact text fields / their final length, capped at 1. Empty without telemetry or artifact text.',
  },
  {
    name: 'final_chars',
    type: 'integer',
    nullable: true,
    unit: 'characters',
    description: `Final text: characters of the participant's sent chat messages plus the text fields of the last submitted artifact version (0 for the artifact when nothing was submitted). ${NO_TELEMETRY}`,
  },
  { name: 'typed_chars', type: 'integer', nullable: true, unit: 'characters', description: `Characters entered by typing (keyboard insertions; pastes, drops and autofill excluded). ${NO_TELEMETRY}` },
  { name: 'typed_ratio', type: 'number', nullable: true, description: 'typed_chars / final_chars (can exceed 1 after edits). Empty without telemetry or final text.' },
  {
    name: 'key_interval_median_ms',
    type: 'number',
    nullable: true,
    unit: 'ms',
    description:
      'Median interval between consecutive keyboard input events, from a fixed histogram (bins 0,25,50,75,100,125,150,200,250,300,400,500,750,1000,2000 ms; linear within the bin). ' +
      'Gaps of 2 s or more are pauses and left out. Empty without keyboard input.',
  },
  { name: 'key_interval_mean_ms', type: 'number', nullable: true, unit: 'ms', description: 'Mean of the same intervals (exact). Empty without keyboard input.' },
  { name: 'key_interval_sd_ms', type: 'number', nullable: true, unit: 'ms', description: 'Sample standard deviation of the same intervals (exact). Empty with fewer than two intervals.' },
  { name: 'away_count', type: 'integer', nullable: true, description: `Times the page was hidden (tab switch, minimised) or the window lost focus during the task. ${NO_TELEMETRY}` },
  { name: 'away_s', type: 'number', nullable: true, unit: 'seconds', description: `Total time away (hidden or unfocused), summed over away_count periods. ${NO_TELEMETRY}` },
  {
    name: 'ua_device',
    type: 'string',
    nullable: true,
    values: ['desktop', 'mobile', 'tablet', 'unknown'],
    description: `Device class from the browser's User-Agent header (the header itself is never stored). ${NO_TELEMETRY}`,
  },
  {
    name: 'ua_browser',
    type: 'string',
    nullable: true,
    values: ['chrome', 'edge', 'firefox', 'safari', 'opera', 'samsung', 'other', 'unknown'],
    description: `Browser family from the User-Agent header. ${NO_TELEMETRY}`,
  },
  {
    name: 'mostly_pasted',
    type: 'boolean',
    nullable: true,
    description: `final_chars ≥ 50 and pasted_share ≥ 0.5. ${FLAG_NOTE} ${NO_TELEMETRY}`,
  },
  { name: 'no_typing', type: 'boolean', nullable: true, description: `final_chars ≥ 50 and typed_chars < 0.1 × final_chars. ${FLAG_NOTE} ${NO_TELEMETRY}` },
  { name: 'long_away', type: 'boolean', nullable: true, description: `away_s ≥ 60. ${FLAG_NOTE} ${NO_TELEMETRY}` },
  {
    name: 'integrity_flags',
    type: 'array',
    nullable: true,
    description: `The raised flags among mostly_pasted, no_typing, long_away, ";"-joined (empty when none is raised or without telemetry).`,
  },
];

export function sessionColumns(likertItems: readonly LikertItemInfo[]): ColumnDef[] {
  return [...SESSION_COLUMNS, ...likertItems.map((i) => likertColumn(i.id, i.prompt, i.points)), ...SESSION_TRAILING_COLUMNS, ...SESSION_TELEMETRY_COLUMNS, ...SESSION_GROUP_COLUMNS, ...SESSION_GROUP_EDIT_COLUMNS, ...SESSION_SIMULATION_COLUMNS];
}

/** Every file of the layout, in the order it is written and documented. */
/** deviations.csv: every deviation from the study's locked pre-registration (lib/preregistration/, docs/preregistration.md). */
export const DEVIATION_COLUMNS: readonly ColumnDef[] = [
  // The contract's columns first, in its order (DEVIATION_CSV_COLUMNS, common/preregistration.ts), then the extra ones.
  { name: 'time', type: 'datetime', description: 'When the deviation was first detected (at start-up, on the dashboard, when a session joined, or by an analyze --prereg run; ISO 8601, UTC).' },
  {
    name: 'kind',
    type: 'string',
    values: ['changed_after_lock', 'sample_beyond_stopping_rule', 'session_after_stop_date', 'analysis_settings'],
    description: "What deviated: a hashed field changed, added or removed after the lock; a condition sampled beyond the stopping rule; sessions after the stop date; an analyze --prereg run's settings (λ, cost, bootstrap, judge model, samples, rubric) other than the plan's.",
  },
  { name: 'file', type: 'string', description: 'The file the deviation concerns, e.g. studies/<id>.yaml or the plan file.' },
  { name: 'field', type: 'string', description: 'The dotted field, e.g. conditions.1.system_prompt, stopping_rule.n_per_condition.<condition> or analysis.lambda.' },
  { name: 'justification', type: 'string', nullable: true, description: "The researcher's justification; empty when none was given." },
  { name: 'version', type: 'integer', description: 'The locked plan version (preregistration.json) the deviation is from.' },
  { name: 'message', type: 'string', description: 'The deviation in words, e.g. "conditions.1.system_prompt changed after the lock".' },
  { name: 'justified_at', type: 'datetime', nullable: true, description: 'When the justification was given (ISO 8601, UTC); empty when none was.' },
  { name: 'detected_at', type: 'datetime', description: 'The same as time: its name before dataset schema 1.5.0, kept for readers of earlier datasets.' },
];

export function datasetFiles(options: { likertItems: readonly LikertItemInfo[]; includeIdentities: boolean }): DatasetFileDef[] {
  const files: DatasetFileDef[] = [
    {
      path: 'sessions.csv',
      name: 'sessions',
      format: 'csv',
      row: 'session',
      description: 'One row per session with assignment, outcome, interaction cost, judge quality and survey answers.',
      columns: sessionColumns(options.likertItems),
    },
    { path: 'messages.jsonl', name: 'messages', format: 'jsonl', row: 'chat message', description: 'The dialogue, redacted.', columns: MESSAGE_COLUMNS },
    { path: 'events.jsonl', name: 'events', format: 'jsonl', row: 'trajectory event', description: 'The full trajectory, redacted and identity-free.', columns: EVENT_COLUMNS },
    {
      path: 'artifacts.jsonl',
      name: 'artifacts',
      format: 'jsonl',
      row: 'artifact submission',
      description: 'Every submitted artifact version; uploaded files are under artifacts/<session_id>/.',
      columns: ARTIFACT_COLUMNS,
    },
    { path: 'judgements.csv', name: 'judgements', format: 'csv', row: 'judge sample', description: 'Raw LLM-judge samples.', columns: JUDGEMENT_COLUMNS },
    { path: 'annotations.csv', name: 'annotations', format: 'csv', row: 'utterance', description: 'Dialogue-act annotations.', columns: ANNOTATION_COLUMNS },
    {
      path: 'deviations.csv',
      name: 'deviations',
      format: 'csv',
      row: 'deviation from the locked pre-registration',
      description: 'Deviations from the locked analysis plan (preregistration.json); no rows when the study was never locked or nothing deviated.',
      columns: DEVIATION_COLUMNS,
    },
    { path: 'groups.csv', name: 'groups', format: 'csv', row: 'group', description: 'One row per group of a group condition (docs/groups.md).', columns: GROUP_COLUMNS },
    {
      path: 'group_events.jsonl',
      name: 'group_events',
      format: 'jsonl',
      row: 'group event',
      description: 'Lobby and membership events of group sessions, with pseudonymous session ids.',
      columns: GROUP_EVENT_COLUMNS,
    },
    {
      path: 'group_judgements.csv',
      name: 'group_judgements',
      format: 'csv',
      row: 'judge sample of a group\'s shared document',
      description: 'Raw LLM-judge samples of the groups\' shared documents (each judged once for its group), laid out as judgements.csv.',
      columns: groupJudgementColumns(JUDGEMENT_COLUMNS),
    },
  ];
  if (options.includeIdentities)
    files.push({
      path: 'identities.csv',
      name: 'identities',
      format: 'csv',
      row: 'identity value',
      description: 'PERSONAL DATA: platform ids and URL parameters per session. Keep apart from the science files; never publish.',
      columns: IDENTITY_COLUMNS,
      personal: true,
    });
  return files;
}

export function columnNames(file: DatasetFileDef): string[] {
  return file.columns.map((c) => c.name);
}

/** The integer and number columns of a file: their cells are numbers, never formula-neutralised (writers.ts). */
export function numericColumnNames(file: DatasetFileDef): Set<string> {
  return new Set(file.columns.filter((c) => c.type === 'integer' || c.type === 'number').map((c) => c.name));
}
