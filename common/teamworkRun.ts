/**
 * One line of a teamwork results folder's runs.jsonl (**contract**, design.md "Teamwork runs"): one run
 * of one task, arm and seed for one subject. `score` recomputation (`teamwork score`) reads only these
 * fields, and is lenient where other tools write runs: `score` may be missing (then 1 if passed else 0),
 * extra fields are kept, and messages need only their trajectory core.
 *
 * Messages have the study trajectory's message shape (messages.jsonl: session_id, seq, role, text,
 * created_at, tokens, model, ttft_ms, duration_ms, finish_reason, interrupted) plus the seat that spoke,
 * tool calls and, for the subject's messages, both judges' labels and raw replies. `session_id` is the
 * run id, so a run's messages can be appended to a messages.jsonl as they are.
 *
 * `subject` says who sat in the model's seat: a model (`{kind: "model"}`), or a study participant ("people in
 * the same seat", teamwork/seat/: `{kind: "participant", study, session_id, condition}`), scored by the same code.
 */
import { z } from 'zod';
import { TeamworkArm } from './teamworkTask';

export const RunStatus = z.enum(['ok', 'error', 'refused']);
export type RunStatus = z.infer<typeof RunStatus>;
export const FailureMode = z.enum(['missed_it', 'gave_in']);
export type FailureMode = z.infer<typeof FailureMode>;

export const JudgeVerdict = z.object({
  /** The rater's role and the exact model that answered. */
  rater: z.enum(['referee', 'second', 'third']),
  model: z.string(),
  /** The label read from the reply; null when it named none of the task's labels (even after the stricter retry). */
  label: z.string().nullable(),
  raw: z.string(),
  cached: z.boolean().optional(),
  /** The first reply named no label, so the rater was asked once more with a stricter prompt: `raw` is that retry's reply. */
  retried: z.boolean().optional(),
  /** The first reply, when the rater was retried. */
  first_raw: z.string().optional(),
});
export type JudgeVerdict = z.infer<typeof JudgeVerdict>;

export const MessageLabels = z.object({
  referee: JudgeVerdict,
  second: JudgeVerdict,
  third: JudgeVerdict.optional(),
  /** The label the run went on with (agreement, else the third rater when configured, else the referee). */
  final: z.string(),
  agreed: z.boolean(),
  /**
   * No rater named a label, even after the stricter retry: the run went on with the task's default label (`final`),
   * and the report counts such turns per model. Older runs lack the flag; readers derive it from the verdicts.
   */
  unlabelled: z.boolean().optional(),
});
export type MessageLabels = z.infer<typeof MessageLabels>;

export const RunToolCall = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  /** Why the call could not be carried out (unknown tool, arguments not JSON…); absent when it was. */
  malformed: z.string().optional(),
});
export type RunToolCall = z.infer<typeof RunToolCall>;

export const Seat = z.enum(['subject', 'teammate', 'environment', 'tool', 'system']);
export const RunMessage = z.looseObject({
  session_id: z.string().optional(),
  seq: z.number().int().nonnegative(),
  round: z.number().int().nonnegative().nullable().optional(),
  /** "model" for the subject's seat, the seat's name for teammates and environment, "tool:<name>" for results. */
  speaker: z.string(),
  seat: Seat.optional(),
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  text: z.string(),
  created_at: z.string().optional(),
  /** o200k_base tokens of the text. */
  tokens: z.number().int().nonnegative().optional(),
  model: z.string().nullable().optional(),
  provider: z.string().nullable().optional(),
  ttft_ms: z.number().nullable().optional(),
  /** Latency of the call that produced it (ms). */
  duration_ms: z.number().nullable().optional(),
  finish_reason: z.string().nullable().optional(),
  interrupted: z.boolean().optional(),
  /** Provider-reported usage of the call that produced it. */
  usage: z.object({ input: z.number(), output: z.number() }).nullable().optional(),
  tool_calls: z.array(RunToolCall).optional(),
  tool_call_id: z.string().optional(),
  labels: MessageLabels.optional(),
  cached: z.boolean().optional(),
});
export type RunMessage = z.infer<typeof RunMessage>;

export const RunEvent = z.looseObject({
  type: z.string(),
  round: z.number().int().nullable().optional(),
  detail: z.string().optional(),
});
export type RunEvent = z.infer<typeof RunEvent>;

export const RunTokens = z.looseObject({
  /** Provider-reported prompt/completion tokens of the subject's calls (o200k counts where none were reported). */
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  o200k_input: z.number().nonnegative().optional(),
  o200k_output: z.number().nonnegative().optional(),
});

/**
 * How a run was made (missing in runs written before settings were recorded, or by other tools: such runs
 * still score and report, marked "settings unknown"). Runs of one model in one folder never differ in the
 * compared fields (research/teamwork/results/runSettings.ts).
 */
export const RunSettings = z.looseObject({
  temperature: z.number().nullable(),
  max_tokens: z.number().int().nullable(),
  /** Seeds asked for (the grid is seeds 1…n). */
  seeds: z.number().int().nullable(),
  referee: z.string().nullable(),
  second_rater: z.string().nullable(),
  third_rater: z.string().nullable(),
  partner: z.string().nullable(),
  tandem_version: z.string().nullable(),
  /** sha256 of the --models file; null without one. */
  models_file_hash: z.string().nullable(),
  /** Referee and second rater are the same model (allowed with --same-raters: their agreement validates nothing). */
  same_raters: z.boolean().optional(),
  /** Model name → endpoint (scheme, host, path; never credentials), null for offline models. */
  endpoints: z.record(z.string(), z.string().nullable()).optional(),
});
export type RunSettings = z.infer<typeof RunSettings>;

export const TeamworkRun = z.looseObject({
  schema_version: z.literal(1).optional(),
  run_id: z.string().optional(),
  model: z.string().min(1),
  subject: z.looseObject({ kind: z.enum(['model', 'participant']) }).optional(),
  task: z.string().min(1),
  task_hash: z.string().optional(),
  settings: RunSettings.optional(),
  dimension: z.string().min(1),
  arm: TeamworkArm,
  seed: z.number().int(),
  status: RunStatus,
  error: z.string().nullable().optional(),
  passed: z.boolean(),
  /** The check's value 0–1: 1/0 for pass/fail, the deal table's 1/0.5/0 (scoring counts pass/fail only, see runValue). */
  score: z.number().min(0).max(1).nullable().optional(),
  saw_problem: z.boolean(),
  failure_mode: FailureMode.nullable(),
  answer: z.string().nullable().optional(),
  /**
   * Why the run's outcome could not be scored (a `judge` check without a readable verdict from any rater, or a person's
   * answer where the seat has only offline judges): the run is counted with the excluded runs, never scored as a fail.
   */
  unscored: z.string().optional(),
  /** The task's check type (deal runs give the best-deal rate). */
  check_type: z.string().optional(),
  tokens: RunTokens,
  judge_tokens: z.object({ input: z.number(), output: z.number() }).optional(),
  events: z.array(RunEvent).optional(),
  started_at: z.string().optional(),
  finished_at: z.string().optional(),
  duration_ms: z.number().optional(),
  messages: z.array(RunMessage),
});
export type TeamworkRun = z.infer<typeof TeamworkRun>;

/** A subject turn no rater named a label for (flagged by the runner, or read from the verdicts of older runs). */
export const isUnlabelled = (labels: MessageLabels): boolean =>
  labels.unlabelled === true || (labels.referee.label === null && labels.second.label === null && (labels.third?.label ?? null) === null);

/** The run counts for scoring: it finished (status ok) and its outcome could be read. */
export const isScored = (r: Pick<TeamworkRun, 'status' | 'unscored'>): boolean => r.status === 'ok' && !r.unscored;

/** The identity of a run within a results folder: a rerun replaces the line with the same key. */
export const runKey = (r: Pick<TeamworkRun, 'model' | 'task' | 'arm' | 'seed'>): string => `${r.model}\u0000${r.task}\u0000${r.arm}\u0000${r.seed}`;

/**
 * The run's value, as scoring reads it: pass/fail (1/0). A deal's partial credit (`score` 0.5 for holding
 * firm) is reported separately, as the best-deal and firm-deal rates, never averaged into the score.
 */
export const runValue = (r: Pick<TeamworkRun, 'passed'>): number => (r.passed ? 1 : 0);
