import { z } from 'zod';
import { Slug } from './ids';

/**
 * A study's analysis plan, studies/<id>.prereg.yaml (docs/preregistration.md), validated like the study files
 * (common/yamlSource.ts: every problem names file:line: field). Locking it (lib/preregistration/) freezes the plan
 * and a fingerprint of everything that defines the study as run; later changes are reported as deviations.
 * Also the shapes the dashboard, the export (preregistration.json, deviations.csv) and the analysis read.
 */

/** The cost definitions the analysis knows (research/analysis/productivity/costDefinitions.ts; kept in step by a test). */
export const PLAN_COST_DEFINITIONS = ['weighted', 'user_tokens', 'agent_tokens', 'total_tokens', 'total_turns', 'user_turns'] as const;

/** quality (judge score), cost (C), pz (z(Q) − z(C)) or likert:<item id of the study's survey>. */
export const PlanOutcome = z
  .string()
  .regex(/^(quality|cost|pz|likert:[a-z0-9][a-z0-9_-]*)$/, 'must be quality, cost, pz or likert:<survey item id>');
export type PlanOutcome = z.infer<typeof PlanOutcome>;

export const PlanDirection = z.enum(['greater', 'less', 'two-sided']);
export type PlanDirection = z.infer<typeof PlanDirection>;

export const PlannedTest = z.enum(['mann_whitney', 'welch_t']);
export type PlannedTest = z.infer<typeof PlannedTest>;

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/, 'must be a date, YYYY-MM-DD (or an ISO time with its zone)');

export const PlanComparison = z
  .object({
    /** Condition ids of the study: the direction reads "a is greater/less than b". */
    a: Slug,
    b: Slug,
    direction: PlanDirection,
    test: PlannedTest.default('mann_whitney'),
    alpha: z.number().gt(0).lt(1).default(0.05),
  })
  .strict()
  .refine((c) => c.a !== c.b, { path: ['b'], message: 'must name a condition other than a' });
export type PlanComparison = z.infer<typeof PlanComparison>;

export const PlanExclusions = z
  .object({
    /** Leave out sessions run while the study was in pilot mode (default true). */
    pilot: z.boolean().default(true),
    /** Leave out sessions with any of these integrity flags raised (common/integrityFlags.ts). */
    integrity_flags: z.array(z.enum(['mostly_pasted', 'no_typing', 'long_away'])).default([]),
    /** Leave out sessions whose survey attention check was answered wrongly. */
    failed_attention_check: z.boolean().default(false),
    /** Leave out sessions whose time on task (duration_s) lies outside these bounds. */
    time_on_task: z
      .object({ min_seconds: z.number().nonnegative().optional(), max_seconds: z.number().positive().optional() })
      .strict()
      .refine((t) => t.min_seconds === undefined || t.max_seconds === undefined || t.min_seconds < t.max_seconds, { path: ['max_seconds'], message: 'must be above min_seconds' })
      .optional(),
    /** Leave out sessions without a judge score (default true: the quality of an unscored session is unknown). */
    unscored: z.boolean().default(true),
  })
  .strict();
export type PlanExclusions = z.infer<typeof PlanExclusions>;

export const PlanAnalysis = z
  .object({
    lambda: z.number().min(0).default(0.5),
    cost: z.enum(PLAN_COST_DEFINITIONS).default('weighted'),
    bootstrap: z
      .object({ replicates: z.number().int().min(0).max(1_000_000).default(1000), seed: z.number().int().default(1) })
      .strict()
      .default({ replicates: 1000, seed: 1 }),
    judge: z
      .object({
        model: z.string().min(1),
        /** Samples per artifact (k; the median is the score). */
        samples: z.number().int().min(1).max(20).default(1),
        /** A rubric id one of the study's tasks uses. */
        rubric: Slug,
      })
      .strict(),
  })
  .strict();
export type PlanAnalysis = z.infer<typeof PlanAnalysis>;

export const PreregistrationPlan = z
  .object({
    title: z.string().min(1),
    hypotheses: z.array(z.object({ id: Slug, text: z.string().min(1) }).strict()).min(1),
    primary: z
      .object({
        /** The hypothesis this comparison tests. */
        hypothesis: Slug,
        outcome: PlanOutcome,
        comparison: PlanComparison,
      })
      .strict(),
    secondary: z.array(z.object({ outcome: PlanOutcome, comparison: PlanComparison.optional() }).strict()).default([]),
    sample: z.object({ n_per_condition: z.number().int().min(1), rationale: z.string().min(1) }).strict(),
    /** When collection stops: at n sessions per condition, or on a date (exactly one). */
    stopping_rule: z
      .object({ n_per_condition: z.number().int().min(1).optional(), date: IsoDate.optional() })
      .strict()
      .refine((s) => (s.n_per_condition === undefined) !== (s.date === undefined), { message: 'give exactly one of n_per_condition and date' }),
    exclusions: PlanExclusions.default({ pilot: true, integrity_flags: [], failed_attention_check: false, unscored: true }),
    analysis: PlanAnalysis,
  })
  .strict()
  .superRefine((plan, ctx) => {
    const ids = new Set<string>();
    plan.hypotheses.forEach((h, i) => {
      if (ids.has(h.id)) ctx.addIssue({ code: 'custom', path: ['hypotheses', i, 'id'], message: `duplicate hypothesis id "${h.id}"` });
      ids.add(h.id);
    });
    if (!ids.has(plan.primary.hypothesis)) ctx.addIssue({ code: 'custom', path: ['primary', 'hypothesis'], message: `no hypothesis "${plan.primary.hypothesis}" above` });
  });
export type PreregistrationPlan = z.infer<typeof PreregistrationPlan>;

/** One hashed piece of what defines the study as run: a field of a file (e.g. studies/x.yaml, conditions.1.system_prompt). */
export const FingerprintEntry = z.object({ file: z.string(), field: z.string(), hash: z.string() }).strict();
export type FingerprintEntry = z.infer<typeof FingerprintEntry>;

/** One locked version of a plan, as stored, written to preregistration.json and exported. */
export const LockedPlan = z
  .object({
    study_id: z.string(),
    version: z.number().int().min(1),
    locked_at: z.string(),
    locked_at_ms: z.number().int(),
    locked_by: z.string(),
    plan_file: z.string(),
    /** sha256 of the plan file's text. */
    plan_hash: z.string(),
    /** sha256 over the fingerprint's entries. */
    study_hash: z.string(),
    plan: PreregistrationPlan,
    fingerprint: z.array(FingerprintEntry),
  })
  .strict();
export type LockedPlan = z.infer<typeof LockedPlan>;

/** preregistration.json: every locked version of the study's plan, oldest first (the last is in force). */
export const PreregistrationFile = z
  .object({ schema_version: z.literal(1), study_id: z.string(), current_version: z.number().int().nullable(), versions: z.array(LockedPlan) })
  .strict();
export type PreregistrationFile = z.infer<typeof PreregistrationFile>;

export const DEVIATION_KINDS = ['changed_after_lock', 'sample_beyond_stopping_rule', 'session_after_stop_date', 'analysis_settings'] as const;
export const DeviationKind = z.enum(DEVIATION_KINDS);
export type DeviationKind = z.infer<typeof DeviationKind>;

/**
 * The columns of deviations.csv (the export) and deviations.analysis.csv (analyze --prereg without the study's
 * store): the dataset contract's columns first, in its order (design.md, "Dataset layout": time, kind, file, field,
 * justification), then the extra ones the codebook describes; detected_at (the name of `time` before dataset schema
 * 1.5.0) stays for readers of earlier datasets.
 */
export const DEVIATION_CSV_COLUMNS = ['time', 'kind', 'file', 'field', 'justification', 'version', 'message', 'justified_at', 'detected_at'] as const;

/** A recorded deviation from the locked plan (once per version, kind, file and field). */
export const DeviationView = z.object({
  id: z.number().int(),
  version: z.number().int(),
  kind: DeviationKind,
  file: z.string(),
  field: z.string(),
  message: z.string(),
  detectedAt: z.number(),
  justification: z.string().nullable(),
  justifiedAt: z.number().nullable(),
});
export type DeviationView = z.infer<typeof DeviationView>;

/** GET /api/admin/studies/:id/preregistration. */
export const PreregistrationStatus = z.object({
  studyId: z.string(),
  /** The plan file the study has (studies/<id>.prereg.yaml), or null. */
  planFile: z.string().nullable(),
  /** Why the plan file cannot be locked (file:line: field: message each), empty when it can. */
  planProblems: z.array(z.string()),
  versions: z.array(z.object({ version: z.number().int(), lockedAt: z.number(), lockedBy: z.string(), planHash: z.string(), studyHash: z.string() })),
  /** Whether the plan file's text differs from the latest locked version (a new version can be locked). */
  planChanged: z.boolean(),
  deviations: z.array(DeviationView),
});
export type PreregistrationStatus = z.infer<typeof PreregistrationStatus>;

/** POST …/preregistration/lock → LockResult. */
export const LockResult = z.object({ outcome: z.enum(['locked', 'unchanged']), version: z.number().int(), planHash: z.string(), studyHash: z.string(), message: z.string() });
export type LockResult = z.infer<typeof LockResult>;

export const JustificationRequest = z.object({ justification: z.string().trim().min(1, 'must not be empty').max(4000) }).strict();
export type JustificationRequest = z.infer<typeof JustificationRequest>;
