import { z } from 'zod';
import { ScreeningQuestion } from './group';
import { Slug } from './ids';

/**
 * The group room's socket events (server/groups/): every client event is validated with its schema here and
 * answered with the one envelope (common/envelope.ts). A group is never chosen by the client: the server derives it
 * from the socket's session; events that name a group id are refused unless it is the socket's own group, so a forged
 * id reads and posts nothing.
 */

const GroupId = z.string().uuid();
const ClientId = z.string().min(1).max(64);

export const groupClientEvents = {
  /** Where this session stands: not a group condition, before the lobby, waiting, released, or in a group. */
  'group:status': z.object({}).strict(),
  /** `answers`: the screening answers by question id (a condition with group.screening needs them; final once given). */
  'group:lobby:join': z.object({ answers: z.record(z.string().min(1).max(64), z.string().min(1).max(64)).optional() }).strict(),
  'group:lobby:leave': z.object({}).strict(),
  'group:send': z.object({ groupId: GroupId, clientId: ClientId, text: z.string().min(1).max(100_000) }).strict(),
  'group:history': z.object({ groupId: GroupId, afterSeq: z.number().int().min(0) }).strict(),
  'group:typing': z.object({ groupId: GroupId, typing: z.boolean() }).strict(),
  /** One Yjs update of the shared artifact's field, base64 (≤ 256 kB). */
  'group:doc:update': z
    .object({
      groupId: GroupId,
      field: Slug,
      update: z
        .string()
        .min(1)
        .max(350_000)
        .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64'),
    })
    .strict(),
} as const;
export type GroupClientEventName = keyof typeof groupClientEvents;
export type GroupClientPayload<E extends GroupClientEventName> = z.infer<(typeof groupClientEvents)[E]>;

export const GroupSenderKind = z.enum(['participant', 'agent', 'researcher', 'system']);

/** A room message as every member sees it: the sender's display name, never a platform or session id. */
export const GroupMessageView = z.object({
  groupId: GroupId,
  groupSeq: z.number().int().positive(),
  senderKind: GroupSenderKind,
  senderName: z.string(),
  /** The sender's seat (people and agents), null for system and researcher messages. */
  seat: z.number().int().positive().nullable(),
  text: z.string(),
  createdAt: z.number(),
  /** The client id of a person's message (lets their own tab match its pending message). */
  clientId: z.string().nullable(),
});
export type GroupMessageView = z.infer<typeof GroupMessageView>;

export const GroupMemberView = z.object({
  seat: z.number().int().positive(),
  name: z.string(),
  kind: z.enum(['participant', 'agent']),
  status: z.enum(['present', 'away', 'dropped', 'replaced', 'left', 'withdrawn']),
  typing: z.boolean(),
});
export type GroupMemberView = z.infer<typeof GroupMemberView>;

export const GroupDocView = z.object({ field: Slug, updates: z.array(z.string()) });

export const GroupView = z.discriminatedUnion('state', [
  z.object({ state: z.literal('none') }),
  z.object({
    state: z.literal('not_joined'),
    size: z.object({ min: z.number(), max: z.number() }),
    timeoutSeconds: z.number(),
    /** The questions to answer before the lobby (group.screening), none if the condition has none. */
    screening: z.array(ScreeningQuestion).default([]),
  }),
  z.object({
    state: z.literal('waiting'),
    /** How many people wait for this condition and task (a count only, never who). */
    waiting: z.number().int().nonnegative(),
    size: z.object({ min: z.number(), max: z.number() }),
    /** Server time when the wait ends, and the server's now (the browser counts down from their difference). */
    deadline: z.number(),
    serverNow: z.number(),
  }),
  z.object({ state: z.literal('released'), code: z.string(), redirectUrl: z.string().nullable(), waitedMs: z.number() }),
  z.object({ state: z.literal('left') }),
  z.object({
    state: z.literal('grouped'),
    groupId: GroupId,
    status: z.enum(['active', 'ended']),
    endReason: z.string().nullable(),
    /** This person's own seat and display name. */
    seat: z.number().int().positive(),
    displayName: z.string(),
    members: z.array(GroupMemberView),
    messages: z.array(GroupMessageView),
    doc: z.array(GroupDocView),
  }),
]);
export type GroupView = z.infer<typeof GroupView>;

/** Server pushes of the group room. */
export const groupServerPushes = {
  'group:view': GroupView,
  /** The lobby's waiting count changed. */
  'group:lobby': z.object({ waiting: z.number().int().nonnegative() }),
  'group:message': GroupMessageView,
  /** An agent's reply as it streams (text so far); the final text arrives as a group:message. */
  'group:delta': z.object({ groupId: GroupId, replyId: z.string(), seat: z.number().int().positive(), senderName: z.string(), text: z.string() }),
  'group:presence': z.object({ groupId: GroupId, members: z.array(GroupMemberView) }),
  'group:doc': z.object({ groupId: GroupId, field: Slug, update: z.string(), seq: z.number().int().positive() }),
} as const;
export type GroupPushName = keyof typeof groupServerPushes;
export type GroupPush<E extends GroupPushName> = z.infer<(typeof groupServerPushes)[E]>;
