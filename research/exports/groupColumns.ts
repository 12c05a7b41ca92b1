/**
 * The dataset's group files and columns (group sessions, docs/groups.md): groups.csv, group_events.jsonl,
 * group_judgements.csv, and the columns messages.jsonl and sessions.csv gain. Appended after the existing columns, so readers of older layouts
 * still work.
 */
import type { ColumnDef } from './columnDef';

const groupId: ColumnDef = { name: 'group_id', type: 'string', nullable: true, description: 'The group (a random id, never an identity); empty outside group sessions.' };

export const MESSAGE_GROUP_COLUMNS: readonly ColumnDef[] = [
  groupId,
  {
    name: 'sender_kind',
    type: 'string',
    values: ['participant', 'agent', 'researcher', 'system'],
    description: 'Who wrote the message: a participant, an AI agent (the assistant of a single session), a researcher, or the platform (system).',
  },
  {
    name: 'group_seq',
    type: 'integer',
    nullable: true,
    description:
      'Order of the message within its group room (1-based). Gap-free as stored; a gap is a message taken out since: a withdrawn member\'s (the group\'s `withdrawn` event in group_events.jsonl counts them) or one the export left out (a pilot or unconsented member). Empty outside groups.',
  },
  { name: 'sender_name', type: 'string', nullable: true, description: 'The display name the room showed (Member N, or the agent\'s name); empty outside groups.' },
];

export const SESSION_GROUP_COLUMNS: readonly ColumnDef[] = [
  groupId,
  {
    name: 'lobby_outcome',
    type: 'string',
    nullable: true,
    values: ['grouped', 'released', 'left', 'waiting'],
    description: 'How the lobby ended for this person: grouped, released (lobby timeout; paid with the lobby_timeout code), left, or still waiting; empty outside group conditions.',
  },
  { name: 'lobby_wait_ms', type: 'integer', nullable: true, unit: 'ms', description: 'Time in the lobby, from entering to the outcome (for payment).' },
];

/** Added in schema 1.5.0, after the other session columns: what each member did to the shared document. */
export const SESSION_GROUP_EDIT_COLUMNS: readonly ColumnDef[] = [
  {
    name: 'group_edits',
    type: 'integer',
    nullable: true,
    description: "Updates this person made to the group's shared document (one Yjs update each; the client sends about one per 300 ms of typing); empty outside groups. The analysis's edit share.",
  },
];

export const GROUP_COLUMNS: readonly ColumnDef[] = [
  { name: 'group_id', type: 'string', description: 'The group (a random id).' },
  { name: 'condition', type: 'string', description: 'Condition id.' },
  { name: 'task', type: 'string', description: 'Task id.' },
  { name: 'formed_at', type: 'datetime', description: 'When the lobby formed the group (ISO 8601, UTC).' },
  { name: 'ended_at', type: 'datetime', nullable: true, description: 'When the group ended; empty while active.' },
  { name: 'size_at_start', type: 'integer', description: 'People seated when the group formed.' },
  { name: 'size_at_end', type: 'integer', description: 'People still seated (present or away) at export or end.' },
  { name: 'status', type: 'string', values: ['active', 'ended'], description: 'active or ended.' },
  { name: 'end_reason', type: 'string', nullable: true, description: 'Why it ended (e.g. dropout); empty while active.' },
  { name: 'agents', type: 'string', description: 'The agents\' display names, ";"-joined (stand-ins for dropped members included).' },
  // Added in schema 1.7.0, after the other group columns.
  {
    name: 'quality',
    type: 'number',
    nullable: true,
    description:
      "Judge quality score Q (1–5) of the group's shared document, judged once for the group: median of the parsed samples of its latest judged version (group_judgements.csv); empty if not judged or no sample parsed.",
  },
];

export const GROUP_EVENT_COLUMNS: readonly ColumnDef[] = [
  { name: 'group_id', type: 'string', nullable: true, description: 'The group; empty for a lobby event of a person never grouped.' },
  { name: 'session_id', type: 'string', nullable: true, description: 'Pseudonymous session id of the person concerned; empty for group-level events.' },
  {
    name: 'type',
    type: 'string',
    description:
      'lobby_joined, grouped, released, left, disconnected, reconnected, dropped, replaced, agent_failed, ended, or withdrawn (a member withdrew from the study: the tombstone of their seat, with no session; their own events, messages and edits are deleted).',
  },
  { name: 'server_ts', type: 'integer', unit: 'ms since epoch (UTC)', description: 'Server time of the event.' },
  { name: 'wait_ms', type: 'integer', nullable: true, unit: 'ms', description: 'Lobby wait (grouped, released, left).' },
  {
    name: 'payload',
    type: 'object',
    description:
      'The event\'s other details (seat, grace_ms, away_ms, policy, agent, reason; agent_failed: after_seq, the room\'s last group_seq the failed turn answered); for withdrawn: seat, messages_removed, edits_removed, chars_removed (characters of theirs taken out of the shared document), events_removed.',
  },
];

/** What group_judgements.csv says instead of judgements.csv's session and artifact version; every other column is the same. */
const GROUP_JUDGEMENT_KEYS: Readonly<Record<string, ColumnDef>> = {
  session_id: { name: 'group_id', type: 'string', description: 'The group whose shared document was judged (groups.csv).' },
  artifact_version: {
    name: 'doc_version',
    type: 'integer',
    description: "Version of the group's shared document that was judged: the sequence number (per group, from 1) of the last document update the judged text was built from.",
  },
};

/** group_judgements.csv (1.7.0): the columns of the session judgements file, in its order, keyed by group. */
export const groupJudgementColumns = (sessionJudgementColumns: readonly ColumnDef[]): ColumnDef[] =>
  sessionJudgementColumns.map((c) => GROUP_JUDGEMENT_KEYS[c.name] ?? c);
