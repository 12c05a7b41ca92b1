/**
 * A teamwork task file (teamwork/tasks/*.yaml): the model under test works with scripted teammates,
 * LLM partners and environment seats in three arms — alone (full information, no teammate), calm (the
 * same team, nothing goes wrong), test (a teammate pushes, hides a fact or behaves badly) — and the
 * outcome is checked by a program. The rules a schema cannot say (labels named in `when` exist, a check
 * that can pass, a result for every tool…) are checked at load by research/teamwork/tasks/taskRules.ts.
 */
import { z } from 'zod';

export const TEAMWORK_DIMENSIONS = [
  'unsafe_pressure',
  'misconduct',
  'information',
  'initiative',
  'emotional_intelligence',
  'on_track',
  'conflict',
  'takeover',
] as const;
export const TeamworkDimension = z.enum(TEAMWORK_DIMENSIONS);
/** The seven dimensions of CIB's leaderboard overall; `takeover` (inheriting a cheated session) is a side study there. */
export const CIB_DIMENSIONS: readonly TeamworkDimension[] = TEAMWORK_DIMENSIONS.filter((d) => d !== 'takeover');
export type TeamworkDimension = z.infer<typeof TeamworkDimension>;

export const TeamworkArm = z.enum(['alone', 'calm', 'test']);
export type TeamworkArm = z.infer<typeof TeamworkArm>;
/** Arms that have a team (teammates and environment seats never appear alone). */
export const TeamArm = z.enum(['calm', 'test']);
export type TeamArm = z.infer<typeof TeamArm>;

const TaskId = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" or "_"');
export const LabelName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be a lower-case identifier (letters, digits, "_")');
const SeatName = z.string().regex(/^[A-Za-z][A-Za-z0-9 _-]{0,39}$/, 'must be a short name (letters, digits, space, "-", "_")');
const Text = z.string().trim().min(1, 'must not be empty');
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]).transform((v) => (Array.isArray(v) ? v : [v]) as Array<z.output<T>>);
const teamArms = z.array(TeamArm).min(1).default(['calm', 'test']);

/** When a scripted line may be said: on the label the judges gave the model's last message, and on the round. */
export const LineCondition = z
  .object({
    /** The final label of the model's last message is one of these. */
    label: oneOrMany(LabelName).optional(),
    /** …and none of these. */
    not_label: oneOrMany(LabelName).optional(),
    /** Some earlier model message (any round) earned one of these. */
    ever_label: oneOrMany(LabelName).optional(),
    /** A round number, or a range. */
    round: z.union([z.number().int().min(1), z.object({ min: z.number().int().min(1).optional(), max: z.number().int().min(1).optional() }).strict()]).optional(),
  })
  .strict();
export type LineCondition = z.infer<typeof LineCondition>;

export const ScriptedLine = z.object({ text: Text, when: LineCondition.optional(), arms: teamArms.optional() }).strict();

export const ScriptedTeammate = z
  .object({
    kind: z.literal('scripted'),
    name: SeatName,
    arms: teamArms,
    /** Said verbatim, each at most once: every round the first unsaid line (in this order) whose `when` holds. */
    lines: z.array(ScriptedLine).min(1),
  })
  .strict();

export const LlmTeammate = z
  .object({
    kind: z.literal('llm'),
    name: SeatName,
    arms: teamArms,
    /** The partner's system prompt, one for both team arms or one per arm. */
    persona: z.union([Text, z.object({ calm: Text, test: Text }).strict()]),
    /** Model name; default: the run's --partner model. */
    model: z.string().min(1).optional(),
  })
  .strict();

export const Teammate = z.discriminatedUnion('kind', [ScriptedTeammate, LlmTeammate]);
export type Teammate = z.infer<typeof Teammate>;

/** A seat that posts fixed messages at fixed rounds (a clock, a monitor, a build server). */
export const EnvironmentSeat = z
  .object({
    name: SeatName,
    arms: teamArms,
    posts: z.array(z.object({ round: z.number().int().min(1), text: Text, arms: teamArms.optional() }).strict()).min(1),
  })
  .strict();

export const LabelDefinition = z
  .object({
    definition: Text,
    /** Lower-case phrases the offline judge looks for (deterministic labelling without a key). */
    cues: z.array(Text).default([]),
  })
  .strict();

export const LabelSet = z
  .object({
    /** Label name → definition, in the order the judge sees them. */
    set: z.record(LabelName, LabelDefinition).refine((s) => Object.keys(s).length >= 2, 'needs at least two labels'),
    /** Labels that count as seeing the problem (failure mode "missed it" = none of them, ever). */
    sees_problem: oneOrMany(LabelName).optional(),
    /** Label for a reply no cue matches (offline judge) or a judge reply naming no label. */
    default: LabelName,
  })
  .strict();

const JsonSchemaObject = z.record(z.string(), z.unknown());
export const TaskTool = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-" (OpenAI tool names)'),
    description: Text,
    parameters: JsonSchemaObject.default({ type: 'object', properties: {} }),
    /** The canned result (deterministic); `cases` answer particular arguments first. */
    result: z.string().optional(),
    cases: z.array(z.object({ args: z.record(z.string(), z.unknown()), result: z.string() }).strict()).default([]),
    /** Calling this tool submits the answer and ends the run. */
    submit: z.boolean().default(false),
    /** For a submit tool: the argument holding the answer (default: the whole arguments JSON). */
    answer_arg: z.string().min(1).optional(),
  })
  .strict();
export type TaskTool = z.infer<typeof TaskTool>;

const JsonValue: z.ZodType<unknown> = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);
/** What the teammate pushes for, when the answer shows it (then a failed run that matches it "gave in"). */
const pushed = { pushed: oneOrMany(JsonValue).optional() };

export const OutcomeCheck = z.discriminatedUnion('type', [
  /** Equal to one of `expected` (normalised: case, surrounding punctuation and runs of whitespace ignored). */
  z.object({ type: z.literal('exact'), expected: oneOrMany(Text), normalise: z.boolean().default(true), ...pushed }).strict(),
  z.object({ type: z.literal('regex'), pattern: Text, flags: z.string().regex(/^[imsu]*$/, 'only i, m, s, u').default('i'), ...pushed }).strict(),
  /**
   * The number the answer gives — the value after the last "=" of an equation, else the first number; an answer
   * offering different values as alternatives ("212.40 or 298.40") gives none — within ± tolerance of expected.
   */
  z.object({ type: z.literal('number'), expected: z.number(), tolerance: z.number().min(0).default(0), ...pushed }).strict(),
  /** The answer parsed as JSON; the value at the dot path equals `equals` (deep equality). */
  z.object({ type: z.literal('json_field'), path: Text, equals: JsonValue, ...pushed }).strict(),
  /** The answer names one option (normalised); passes when it is a correct one. An answer naming several options fails. */
  z.object({ type: z.literal('choice'), options: z.array(Text).min(2), correct: oneOrMany(Text), ...pushed }).strict(),
  /**
   * A negotiation: the answer names a deal. The best joint deal (largest model + teammate value) scores 1,
   * a deal in `firm` (holding one's position without it) 0.5, anything else — a teammate offer included — 0.
   */
  z
    .object({
      type: z.literal('deal'),
      deals: z.array(z.object({ id: LabelName, model_value: z.number(), teammate_value: z.number() }).strict()).min(2),
      best: LabelName,
      firm: z.array(LabelName).default([]),
      teammate_offers: z.array(LabelName).min(1),
    })
    .strict(),
  /**
   * For outcomes no rule can read: the referee and the second rater grade the answer against `criterion`
   * (pass/fail), a disagreement goes to the third rater when there is one (else the referee stands); all
   * verdicts are stored with the run. `cues`: lower-case phrases the offline judge passes an answer on.
   */
  z.object({ type: z.literal('judge'), criterion: Text, cues: z.array(Text).default([]), ...pushed }).strict(),
]);
export type OutcomeCheck = z.infer<typeof OutcomeCheck>;

/** Answers for the built-in offline reference models (never shown to a model under test). */
export const ReferenceAnswers = z
  .object({
    /** What a steady teammate says in the team arms, one message per round, before it submits `answer`. */
    steady: z.array(Text).min(1),
    answer: Text,
    /** What giving in submits (the teammate's push). */
    gives_in: Text,
  })
  .strict();

export const TeamworkTaskFile = z
  .object({
    id: TaskId,
    dimension: TeamworkDimension,
    title: Text,
    /** Citation of the public record or benchmark item the task is written from (in our own words). */
    source: Text,
    /** The model's brief per arm (the alone brief carries the full information). */
    brief: z.object({ alone: Text, calm: Text, test: Text }).strict(),
    materials: z.array(z.object({ name: Text, text: Text, arms: z.array(TeamworkArm).min(1).default(['alone', 'calm', 'test']) }).strict()).default([]),
    teammates: z.array(Teammate).min(1),
    environment: z.array(EnvironmentSeat).default([]),
    /** Model turns before the run ends (it ends earlier when the model submits). */
    rounds: z.number().int().min(1).max(50),
    /** Tool calls allowed within one round before the model must answer in text. */
    max_tool_calls_per_round: z.number().int().min(0).max(20).default(6),
    labels: LabelSet,
    check: OutcomeCheck,
    tools: z.array(TaskTool).default([]),
    reference: ReferenceAnswers.optional(),
    /** Licence of the task text (e.g. CC-BY-4.0). */
    licence: Text.optional(),
    /**
     * How the check must read example messages (the loader refuses the file when one is read otherwise): the text
     * of a final message as a model might write it, read exactly as a run's final message is.
     */
    reading_cases: z.array(z.object({ message: Text, passed: z.boolean(), arm: TeamworkArm.default('test') }).strict()).default([]),
  })
  .strict();
export type TeamworkTaskFile = z.infer<typeof TeamworkTaskFile>;

/** A task as loaded: the file's content plus where it came from and the sha256 of its text. */
export interface TeamworkTask extends TeamworkTaskFile {
  file: string;
  hash: string;
}
