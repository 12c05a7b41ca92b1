import { z } from 'zod';
import { Slug } from './ids';
import { AssistantConfig } from './assistantMode';
import { GroupAgents, GroupConfig } from './group';

/**
 * A study definition, loaded from studies/<id>.yaml and validated at start-up.
 * Keys are snake_case in the YAML file and in these types alike.
 */

export const ArtifactFieldKind = z.enum(['text', 'code', 'image']);
export type ArtifactFieldKind = z.infer<typeof ArtifactFieldKind>;

/** One field of the artifact form the participant fills in beside the chat. */
export const ArtifactField = z
  .object({
    id: Slug,
    label: z.string().min(1),
    kind: ArtifactFieldKind,
    required: z.boolean().default(true),
    /** Help text shown under the field (plain text). */
    help: z.string().optional(),
    /** Syntax-highlighting hint for code fields, e.g. "python". */
    language: z.string().min(1).optional(),
    /** Maximum characters for text/code fields (default 20,000). */
    max_length: z.number().int().positive().max(200_000).optional(),
  })
  .strict();
export type ArtifactField = z.infer<typeof ArtifactField>;

/** A file shipped with the study (under studies/materials/) that participants may download. */
export const Material = z
  .object({
    /** File name as served: GET /api/session/materials/:name */
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'must be a plain file name (letters, digits, ".", "_", "-")'),
    /** Path relative to the studies directory, e.g. "materials/penguins.csv". */
    path: z.string().min(1),
    description: z.string().optional(),
  })
  .strict();
export type Material = z.infer<typeof Material>;

export const Task = z
  .object({
    id: Slug,
    title: z.string().min(1),
    /** Markdown shown on the instructions step and beside the workspace; also given to the assistant. */
    instructions: z.string().min(1),
    /** Rubric id (rubrics/<id>.yaml) used by the judge to score the artifact. */
    rubric: Slug,
    materials: z.array(Material).default([]),
    fields: z.array(ArtifactField).min(1),
  })
  .strict()
  .superRefine((task, ctx) => {
    const seen = new Set<string>();
    task.fields.forEach((f, i) => {
      if (seen.has(f.id)) ctx.addIssue({ code: 'custom', path: ['fields', i, 'id'], message: `duplicate field id "${f.id}"` });
      seen.add(f.id);
    });
    const names = new Set<string>();
    task.materials.forEach((m, i) => {
      if (names.has(m.name)) ctx.addIssue({ code: 'custom', path: ['materials', i, 'name'], message: `duplicate material name "${m.name}"` });
      names.add(m.name);
    });
  });
export type Task = z.infer<typeof Task>;

export const ProviderKind = z.enum(['openai', 'offline', 'teamwork']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/** A model name for a teamwork judge or partner (offline-judge, offline-partner, or an OpenAI-compatible model). */
const TeamworkModelName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, 'must be a model name (letters, digits, . _ : / @ -)');

/**
 * "People in the same seat" (docs/teamwork.md): the participant sits in the model's seat of a teamwork
 * task, and the task's teammates answer in the chat (provider "teamwork"). The task file is checked at
 * load (lib/studyFiles/studyConfig.ts): "research/teamwork/…" is a task shipped with Tandem, any other relative path is
 * relative to the studies directory. Once loaded, `task` holds the resolved absolute path.
 */
export const TeamworkSeat = z
  .object({
    /** The teamwork task file, e.g. "teamwork/tasks/suite/info-flood-route.yaml". */
    task: z.string().min(1),
    arm: z.enum(['alone', 'calm', 'test']),
    referee: TeamworkModelName.default('offline-judge'),
    second_rater: TeamworkModelName.default('offline-judge'),
    third_rater: TeamworkModelName.optional(),
    /** Model of LLM partners whose task names none. */
    partner: TeamworkModelName.default('offline-partner'),
    /** The artifact field whose submitted text the task's outcome check scores; default: the study task's first field. */
    answer_field: Slug.optional(),
  })
  .strict();
export type TeamworkSeat = z.infer<typeof TeamworkSeat>;

/** A teamwork-seat condition needs no model or system prompt of its own: the task's seats answer. */
function teamworkSeatDefaults(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || (input as { provider?: unknown }).provider !== 'teamwork') return input;
  const seat = (input as { teamwork?: { task?: unknown; arm?: unknown } }).teamwork;
  const name = typeof seat?.task === 'string' ? (seat.task.split('/').pop() ?? '').replace(/\.ya?ml$/, '') : 'task';
  return {
    model: `teammate:${name}/${typeof seat?.arm === 'string' ? seat.arm : ''}`,
    system_prompt: 'Teamwork seat: the teammates of the task answer (no model prompt).',
    assistant_label: 'your team',
    ...input,
  };
}

export const Condition = z.preprocess(
  teamworkSeatDefaults,
  z
    .object({
      id: Slug,
      /**
       * 'openai' = any OpenAI-compatible endpoint (OPENAI_BASE_URL/OPENAI_API_KEY); falls back to the offline demo assistant
       * when no key is set. 'teamwork' = the teammates of the teamwork task named in `teamwork` (people in the same seat).
       */
      provider: ProviderKind,
      /** Exact model name sent to the provider. */
      model: z.string().min(1),
      system_prompt: z.string().min(1),
      temperature: z.number().min(0).max(2).default(0.7),
      max_tokens: z.number().int().positive().max(32_768).default(1024),
      /** What the participant sees as the assistant's name; never the condition id. */
      assistant_label: z.string().min(1).default('AI assistant'),
      teamwork: TeamworkSeat.optional(),
      /** Who answers: the model (default), the model reviewed by a researcher, or a researcher (common/assistantMode.ts); absent = model. */
      assistant: AssistantConfig.optional(),
      /** Several people in one live room (common/group.ts); absent = one person with the assistant. */
      group: GroupConfig.optional(),
      /** The AI agents of a group room; only with `group`. */
      agents: GroupAgents.optional(),
    })
    .strict()
    .superRefine((c, ctx) => {
      if (c.provider === 'teamwork' && !c.teamwork) ctx.addIssue({ code: 'custom', path: ['teamwork'], message: 'provider "teamwork" needs a teamwork block (task, arm)' });
      if (c.provider !== 'teamwork' && c.teamwork) ctx.addIssue({ code: 'custom', path: ['provider'], message: 'a condition with a teamwork block must have provider "teamwork"' });
      if (c.provider === 'teamwork' && c.assistant && c.assistant.mode !== 'model')
        ctx.addIssue({ code: 'custom', path: ['assistant', 'mode'], message: 'a teamwork seat is answered by its teammates: the assistant mode must be model' });
      if (c.agents && !c.group) ctx.addIssue({ code: 'custom', path: ['agents'], message: 'agents speak in a group room: add a group block' });
      if (c.group && c.teamwork) ctx.addIssue({ code: 'custom', path: ['group'], message: 'a group condition cannot also be a teamwork seat' });
    }),
);
export type Condition = z.infer<typeof Condition>;

/** How free-text survey answers leave the server in a dataset. */
export const FreeTextExport = z.enum(['redacted', 'omitted']);
export type FreeTextExport = z.infer<typeof FreeTextExport>;

export const CompletionOutcome = z.enum(['completed', 'declined', 'timed_out']);
export type CompletionOutcome = z.infer<typeof CompletionOutcome>;

export const CompletionConfig = z
  .object({
    codes: z
      .object({
        completed: z.string().min(1),
        declined: z.string().min(1),
        timed_out: z.string().min(1),
        /** Group studies: a person the lobby released without a group (their wait is recorded for payment). */
        lobby_timeout: z.string().min(1).optional(),
        /** Group studies whose dropout policy is end_group: the members of a group that ended early. */
        group_ended: z.string().min(1).optional(),
      })
      .strict(),
    /** e.g. "https://app.prolific.com/submissions/complete?cc={code}" — must contain {code}. */
    redirect: z
      .string()
      .refine((s) => s.includes('{code}'), 'must contain the placeholder {code}')
      .refine((s) => /^https?:\/\//.test(s), 'must start with http:// or https://')
      .optional(),
  })
  .strict();
export type CompletionConfig = z.infer<typeof CompletionConfig>;

export const Study = z
  .object({
    title: z.string().min(1),
    /** One-line description shown on the preview / landing page. */
    description: z.string().optional(),
    consent: z.object({ version: z.string().min(1), text: z.string().min(1) }).strict(),
    tasks: z.array(Task).min(1),
    conditions: z.array(Condition).min(1),
    assignment: z.object({ strategy: z.literal('balanced') }).strict().default({ strategy: 'balanced' }),
    time_limit_minutes: z.number().positive().max(24 * 60),
    /** Survey id (surveys/<id>.yaml). */
    survey: Slug,
    completion: CompletionConfig,
    chat: z
      .object({
        max_message_chars: z.number().int().positive().max(100_000).default(4000),
        /** Participant messages per session; beyond it chat:send is refused (bounds LLM cost per session). */
        max_user_messages: z.number().int().positive().max(10_000).default(60),
      })
      .strict()
      .default({ max_message_chars: 4000, max_user_messages: 60 }),
    /** What the dataset export does with the study's data beyond the fixed rules (research/exports/, docs/data-protection.md). */
    export: z
      .object({
        /** Free-text survey answers in events.jsonl: omitted (replaced by a marker; the default) or redacted like chat text. */
        free_text: FreeTextExport.default('omitted'),
      })
      .strict()
      .default({ free_text: 'omitted' }),
  })
  .strict()
  .superRefine((study, ctx) => {
    const dup = (list: { id: string }[], key: string) => {
      const seen = new Set<string>();
      list.forEach((x, i) => {
        if (seen.has(x.id)) ctx.addIssue({ code: 'custom', path: [key, i, 'id'], message: `duplicate id "${x.id}"` });
        seen.add(x.id);
      });
    };
    dup(study.tasks, 'tasks');
    dup(study.conditions, 'conditions');
    study.conditions.forEach((c, i) => {
      if (c.group && study.completion.codes.lobby_timeout === undefined)
        ctx.addIssue({ code: 'custom', path: ['completion', 'codes'], message: `condition "${c.id}" forms groups: add a lobby_timeout completion code` });
      if (c.group?.dropout.policy === 'end_group' && study.completion.codes.group_ended === undefined)
        ctx.addIssue({ code: 'custom', path: ['conditions', i, 'group', 'dropout', 'policy'], message: 'policy end_group needs a group_ended completion code' });
    });
  });
export type Study = z.infer<typeof Study>;

/** A study as loaded: the file's content plus its id (the file name without .yaml). */
export type LoadedStudy = Study & { id: string };

/** The code of a person a group lobby released: the study's lobby_timeout code, else its timed_out code. */
export function lobbyReleaseCode(completion: CompletionConfig): string {
  return completion.codes.lobby_timeout ?? completion.codes.timed_out;
}

/** Fills the redirect template with a completion code; null when the study has no redirect. */
export function completionRedirectUrl(completion: CompletionConfig, code: string): string | null {
  return completion.redirect ? completion.redirect.split('{code}').join(encodeURIComponent(code)) : null;
}
