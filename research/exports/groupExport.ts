/**
 * The group part of a dataset (docs/groups.md): groups.csv, group_events.jsonl, group_judgements.csv, the room
 * messages in messages.jsonl (one row per message, under the sender's pseudonym; agents and notices without one) and
 * the sessions.csv group columns. Only sessions the export kept appear under their pseudonym; a withdrawn or left-out person's messages and
 * events are not written.
 */
import type { ExportSnapshot, LobbyEntryRow } from '../../lib/storage';
import { judgeSampleCells } from './judgeSampleCells';
import type { RowWriter } from './writers';

export interface GroupExportTarget {
  groups: RowWriter<Record<string, unknown>>;
  groupEvents: RowWriter<Record<string, unknown>>;
  groupJudgements: RowWriter<Record<string, unknown>>;
  messages: RowWriter<Record<string, unknown>>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const GONE = new Set(['dropped', 'left', 'replaced', 'withdrawn']);

/** The sessions.csv group columns of each session that entered a lobby. */
export async function sessionGroupColumns(reader: ExportSnapshot, studyId: string): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const e of await reader.groups.listLobbyEntries(studyId)) {
    const edits = e.groupId === null ? null : await reader.groups.countMemberDocUpdates(e.sessionId);
    out.set(e.sessionId, { ...lobbyColumns(e), group_edits: edits });
  }
  return out;
}

function lobbyColumns(e: LobbyEntryRow): Record<string, unknown> {
  return { group_id: e.groupId, lobby_outcome: e.outcome ?? 'waiting', lobby_wait_ms: e.outcomeAt === null ? null : e.outcomeAt - e.joinedAt };
}

/** The columns a single-session message gains (it has no group). */
export const soloMessageColumns = (role: 'user' | 'assistant') => ({ group_id: null, sender_kind: role === 'user' ? 'participant' : 'agent', group_seq: null, sender_name: null });

/** Writes the study's groups, their judge samples, events and room messages; `pseudonyms` holds the sessions the export kept. */
export async function writeGroups(
  reader: ExportSnapshot,
  studyId: string,
  pseudonyms: ReadonlyMap<string, string>,
  redact: (sessionId: string | null, text: string) => Promise<string>,
  out: GroupExportTarget,
): Promise<void> {
  const kept = new Set<string>();
  for (const g of await reader.groups.listGroups(studyId)) {
    const members = await reader.groups.listMembers(g.id);
    // A group shows in the dataset when at least one of its people does (a pilot-only group stays out without --include-pilot).
    if (!members.some((m) => m.sessionId !== null && pseudonyms.has(m.sessionId)) && members.some((m) => m.kind === 'participant')) continue;
    kept.add(g.id);
    await out.groups.write({
      group_id: g.id,
      condition: g.conditionId,
      task: g.taskId,
      formed_at: iso(g.formedAt),
      ended_at: iso(g.endedAt),
      size_at_start: g.sizeAtStart,
      size_at_end: members.filter((m) => m.kind === 'participant' && !GONE.has(m.status)).length,
      status: g.status,
      end_reason: g.endReason,
      agents: members.filter((m) => m.kind === 'agent').map((m) => m.displayName).join(';'),
      quality: await reader.groupQuality(g.id),
    });
    // As judgements.csv's rows (exportStudy.ts), keyed by group and document version.
    for await (const j of reader.groupJudgements(g.id)) {
      await out.groupJudgements.write({ group_id: g.id, doc_version: j.docVersion, ...judgeSampleCells(j) });
    }
    for (const m of await reader.groups.listMessages(g.id)) {
      if (m.senderKind === 'participant' && (m.sessionId === null || !pseudonyms.has(m.sessionId))) continue;
      await out.messages.write({
        session_id: m.sessionId === null ? null : pseudonyms.get(m.sessionId),
        seq: m.groupSeq,
        role: m.senderKind === 'participant' ? 'user' : m.senderKind === 'system' ? 'system' : 'assistant',
        text: await redact(m.sessionId, m.content),
        created_at: iso(m.createdAt),
        tokens: m.tokens,
        model: null,
        ttft_ms: null,
        duration_ms: null,
        finish_reason: null,
        interrupted: false,
        status: 'complete',
        group_id: g.id,
        sender_kind: m.senderKind,
        group_seq: m.groupSeq,
        sender_name: m.senderName,
      });
    }
  }
  for (const e of await reader.groups.listEvents(studyId)) {
    if (e.sessionId !== null && !pseudonyms.has(e.sessionId)) continue;
    if (e.sessionId === null && (e.groupId === null || !kept.has(e.groupId))) continue;
    const { wait_ms: waitMs, ...payload } = e.payload;
    await out.groupEvents.write({
      group_id: e.groupId,
      session_id: e.sessionId === null ? null : pseudonyms.get(e.sessionId),
      type: e.type,
      server_ts: e.serverTs,
      wait_ms: typeof waitMs === 'number' ? waitMs : null,
      payload,
    });
  }
}
