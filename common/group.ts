import { z } from 'zod';

/**
 * Group sessions (issue 23): a condition with a `group:` block puts several people (and zero or more AI agents,
 * `agents:`) into one live room. Keys are snake_case as in the YAML file. Loaded with the study file, so a bad value
 * is reported as `file:line: field: message` like every other study field.
 */

/** How many people a group holds. A group forms at `max`; a lobby timeout may start it with `min` or more. */
export const GroupSize = z
  .object({
    min: z.number().int().min(1).max(20),
    max: z.number().int().min(1).max(20),
  })
  .strict()
  .refine((s) => s.min <= s.max, { message: 'min must not exceed max', path: ['min'] });
export type GroupSize = z.infer<typeof GroupSize>;

export const LobbyTimeoutAction = z.enum(['start_smaller', 'release']);
export type LobbyTimeoutAction = z.infer<typeof LobbyTimeoutAction>;

/** The waiting room. Its timer runs on the server; `release` ends the wait with the study's lobby_timeout code. */
export const LobbyConfig = z
  .object({
    timeout_seconds: z.number().int().min(5).max(3600),
    on_timeout: LobbyTimeoutAction,
  })
  .strict();
export type LobbyConfig = z.infer<typeof LobbyConfig>;

/** A quota key, a quota value, a screening question's id or an option's value. */
const QuotaValue = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 chars of letters, digits, "_" or "-"');

/**
 * How the seats are filled: by arrival order, or by a quota on a URL parameter or a screening answer, e.g.
 * `{ quota: { source: url_param, key: expertise, seats: { expert: 1, novice: 2 } } }` (1 expert + 2 novices).
 * `source: answer` reads the answer to the screening question whose id is `key` (group.screening, below).
 */
export const QuotaSeats = z
  .object({
    source: z.enum(['url_param', 'answer']),
    key: QuotaValue,
    seats: z.record(z.string().min(1).max(64), z.number().int().min(1).max(20)).refine((s) => Object.keys(s).length > 0, 'needs at least one value'),
  })
  .strict();
export type QuotaSeats = z.infer<typeof QuotaSeats>;

/**
 * A screening question the participant answers after consent and before the lobby (the only way an answer exists
 * then: the study's survey comes after the task), e.g. `{ id: expertise, text: "How much …?", options: [{ value:
 * expert, label: "…" }, …] }`. A quota with `source: answer` reads it by its id. The answer is stored as a survey
 * answer of the session (survey id SCREENING_SURVEY_ID) and is final once given.
 */
export const ScreeningOption = z
  .object({
    value: QuotaValue,
    /** Shown to the participant (as text, never HTML). */
    label: z.string().trim().min(1).max(200),
  })
  .strict();
export const ScreeningQuestion = z
  .object({
    id: QuotaValue,
    text: z.string().trim().min(1).max(1000),
    options: z
      .array(ScreeningOption)
      .min(2)
      .max(12)
      .superRefine((options, ctx) => {
        const seen = new Set<string>();
        options.forEach((o, i) => {
          if (seen.has(o.value)) ctx.addIssue({ code: 'custom', path: [i, 'value'], message: `duplicate option value "${o.value}"` });
          seen.add(o.value);
        });
      }),
  })
  .strict();
export type ScreeningQuestion = z.infer<typeof ScreeningQuestion>;

/** The survey id under which screening answers are stored (survey_answers.survey_id) and exported. */
export const SCREENING_SURVEY_ID = 'group-screening';

export const FormBy = z.union([z.literal('arrival'), z.object({ quota: QuotaSeats }).strict()]);
export type FormBy = z.infer<typeof FormBy>;

export const DropoutPolicy = z.enum(['continue', 'end_group', 'replace_with_agent']);
export type DropoutPolicy = z.infer<typeof DropoutPolicy>;

export const DropoutConfig = z
  .object({
    /** A member whose sockets are all gone this long is dropped (a reload or a node change is far shorter). */
    grace_seconds: z.number().int().min(0).max(3600).default(60),
    policy: DropoutPolicy.default('continue'),
  })
  .strict();
export type DropoutConfig = z.infer<typeof DropoutConfig>;

export const GroupConfig = z
  .object({
    size: GroupSize,
    lobby: LobbyConfig,
    form_by: FormBy.default('arrival'),
    dropout: DropoutConfig.default({ grace_seconds: 60, policy: 'continue' }),
    /** Questions answered after consent and before the lobby; absent = none (the lobby opens right after consent). */
    screening: z.array(ScreeningQuestion).min(1).max(5).optional(),
  })
  .strict()
  .superRefine((g, ctx) => {
    const questions = new Map<string, ScreeningQuestion>();
    (g.screening ?? []).forEach((q, i) => {
      if (questions.has(q.id)) ctx.addIssue({ code: 'custom', path: ['screening', i, 'id'], message: `duplicate screening question id "${q.id}"` });
      questions.set(q.id, q);
    });
    if (typeof g.form_by === 'object') {
      const { quota } = g.form_by;
      const seats = Object.values(quota.seats).reduce((a, b) => a + b, 0);
      if (seats !== g.size.max)
        ctx.addIssue({ code: 'custom', path: ['form_by', 'quota', 'seats'], message: `the quota's seats add up to ${seats}, but size.max is ${g.size.max}` });
      const question = questions.get(quota.key);
      if (quota.source === 'answer' && !question)
        ctx.addIssue({
          code: 'custom',
          path: ['form_by', 'quota', 'key'],
          message: `no screening question "${quota.key}": a quota on an answer reads a question of group.screening (add one with id ${quota.key})`,
        });
      if (quota.source === 'answer' && question)
        for (const value of Object.keys(quota.seats))
          if (!question.options.some((o) => o.value === value))
            ctx.addIssue({ code: 'custom', path: ['form_by', 'quota', 'seats', value], message: `"${value}" is not an option of screening question "${quota.key}"` });
    }
  });
export type GroupConfig = z.infer<typeof GroupConfig>;

/**
 * When an agent speaks. Only people's messages trigger an agent (never another agent's or its own), so agents
 * cannot set each other off; `max_replies` bounds every policy, `idle_seconds` included.
 * - every_message: after each person's message
 * - { every_n_messages: N }: after every N-th person's message
 * - when_addressed: when a person's message names the agent (`@Name` or the name as a word)
 * - round_robin: people and agents take turns: the agent speaks after each full round of the people present
 * - { idle_seconds: S }: when the room has been silent S seconds since a person's message
 */
export const SpeakingPolicy = z.union([
  z.enum(['every_message', 'when_addressed', 'round_robin']),
  z.object({ every_n_messages: z.number().int().min(1).max(1000) }).strict(),
  z.object({ idle_seconds: z.number().int().min(5).max(3600) }).strict(),
]);
export type SpeakingPolicy = z.infer<typeof SpeakingPolicy>;

/** A display name shown in the room: letters, digits, spaces and a little punctuation, so it can be @-addressed. */
export const DisplayName = z
  .string()
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._'-]{0,39}$/u, 'must be 1–40 letters, digits, spaces or . _ \' -, starting with a letter or digit');

/**
 * Who speaks as a group agent, as `conditions[].assistant` declares it for a single session (common/assistantMode.ts):
 * `model` (the default: its model replies by its speaking policy) or `wizard` (a researcher writes its messages in the
 * Wizard-of-Oz console; the model is not called, the room shows the agent's name, the trajectory sender_kind
 * researcher). `max_replies` bounds the researcher too. Review of drafts is a single-session mode only.
 */
export const GroupAgentAssistant = z
  .object({
    mode: z.enum(['model', 'wizard']).default('model'),
    /** One-click messages in the console. */
    canned_replies: z.array(z.string().min(1).max(4000)).max(50).default([]),
  })
  .strict();
export type GroupAgentAssistant = z.infer<typeof GroupAgentAssistant>;

export const GroupAgent = z
  .object({
    /** Shown to everyone in the room as the sender's name. */
    name: DisplayName,
    /** 'openai' falls back to the offline demo model without a key, as a condition does. */
    provider: z.enum(['openai', 'offline']).default('openai'),
    model: z.string().min(1),
    system_prompt: z.string().min(1),
    temperature: z.number().min(0).max(2).default(0.7),
    max_tokens: z.number().int().positive().max(32_768).default(512),
    speaks: SpeakingPolicy,
    /** The most this agent says in one group: the bound no policy may exceed. */
    max_replies: z.number().int().min(1).max(1000),
    /** Who speaks as the agent: the model (the default) or a researcher in the Wizard-of-Oz console (GroupAgentAssistant). */
    assistant: GroupAgentAssistant.optional(),
  })
  .strict();
export type GroupAgent = z.infer<typeof GroupAgent>;

/** Whether a researcher speaks as this agent (Wizard of Oz) instead of its model. */
export const spokenByWizard = (agent: Pick<GroupAgent, 'assistant'>): boolean => agent.assistant?.mode === 'wizard';

export const GroupAgents = z
  .array(GroupAgent)
  .max(8)
  .superRefine((agents, ctx) => {
    const seen = new Set<string>();
    agents.forEach((a, i) => {
      const key = a.name.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate agent name "${a.name}"` });
      if (/^member \d+$/i.test(a.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${a.name}" is the form of people's names (Member N)` });
      seen.add(key);
    });
  });
export type GroupAgents = z.infer<typeof GroupAgents>;

/** What people are called in the room: "Member 1", "Member 2", … by seat (never a platform id). */
export const memberDisplayName = (seat: number): string => `Member ${seat}`;
