import { z } from 'zod';
import { Slug } from './ids';
import { GroupMemberView, GroupSenderKind } from './groupEvents';

/**
 * What the researcher's live monitor shows of group sessions (server/admin/groupMonitor.ts, client/admin/GroupMonitor.tsx),
 * part of the study's MonitorSnapshot and pushed over the /admin namespace as `monitor:group` while it changes:
 * each lobby as counts only (how many wait, since when the oldest), and each live group with its members' presence
 * under their display names (a member's session id links to the session page: a random id, never an identity), the
 * room's messages and the shared document's text. Every text is rendered as text, never as HTML.
 */

/** The people waiting for one condition and task: a count and the oldest wait, never who. */
export const MonitorLobby = z.object({
  conditionId: z.string(),
  taskId: z.string(),
  waiting: z.number().int().nonnegative(),
  /** When the person waiting longest entered (server ms); null when nobody waits. */
  oldestJoinedAt: z.number().nullable(),
  /** The group size the lobby fills, and its timeout. */
  size: z.object({ min: z.number().int(), max: z.number().int() }),
  timeoutSeconds: z.number().int(),
});
export type MonitorLobby = z.infer<typeof MonitorLobby>;

/** A seat as the researcher sees it: the participants' view plus the seat's session (people only) and since when away. */
export const MonitorGroupMember = GroupMemberView.extend({
  sessionId: z.string().nullable(),
  awaySince: z.number().nullable(),
  /** An AI agent that took the seat of a person who dropped out (replace_with_agent). */
  standIn: z.boolean(),
});
export type MonitorGroupMember = z.infer<typeof MonitorGroupMember>;

/** A room message as the researcher sees it: a message a researcher wrote as an agent says so (senderKind researcher). */
export const MonitorGroupMessage = z.object({
  groupSeq: z.number().int().positive(),
  senderKind: GroupSenderKind,
  senderName: z.string(),
  text: z.string(),
  createdAt: z.number(),
});
export type MonitorGroupMessage = z.infer<typeof MonitorGroupMessage>;

export const MonitorGroup = z.object({
  groupId: z.string().uuid(),
  conditionId: z.string(),
  taskId: z.string(),
  status: z.enum(['active', 'ended']),
  endReason: z.string().nullable(),
  formedAt: z.number(),
  endedAt: z.number().nullable(),
  members: z.array(MonitorGroupMember),
  messages: z.array(MonitorGroupMessage),
  /** The shared document: its Yjs state (base64; later `doc` pushes apply to it) and each text field's current text. */
  doc: z.object({ state: z.string(), fields: z.array(z.object({ field: Slug, text: z.string() })) }),
  /** The agents a researcher may speak as in the Wizard-of-Oz console (their `assistant.mode` is wizard). */
  wizardAgents: z.array(z.string()),
});
export type MonitorGroup = z.infer<typeof MonitorGroup>;

/** Group sessions of a study: lobbies of its group conditions, live groups and those ended in the last 15 minutes. */
export const MonitorGroups = z.object({ lobbies: z.array(MonitorLobby), groups: z.array(MonitorGroup) });
export type MonitorGroups = z.infer<typeof MonitorGroups>;

/** A live change of one group, pushed to the study's monitors as it happens (on every node, through the adapter). */
export const MonitorGroupPush = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('message'), studyId: z.string(), groupId: z.string().uuid(), message: MonitorGroupMessage }),
  /** An agent's reply as it streams (text so far). */
  z.object({ kind: z.literal('delta'), studyId: z.string(), groupId: z.string().uuid(), replyId: z.string(), senderName: z.string(), text: z.string() }),
  z.object({ kind: z.literal('presence'), studyId: z.string(), groupId: z.string().uuid(), members: z.array(GroupMemberView) }),
  z.object({ kind: z.literal('doc'), studyId: z.string(), groupId: z.string().uuid(), field: Slug, update: z.string() }),
  /** Something the snapshot holds changed (a lobby, a group formed or ended): read the monitor again. */
  z.object({ kind: z.literal('changed'), studyId: z.string() }),
]);
export type MonitorGroupPush = z.infer<typeof MonitorGroupPush>;
