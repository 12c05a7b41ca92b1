/**
 * The group rooms' messages in messages.jsonl (rows with a group_id; docs/groups.md), counted per group: each
 * person's tokens and turns under their pseudonym, and the agents' (AI agents, and researchers speaking as one in
 * the Wizard-of-Oz console: both are the room's non-human side). Platform notices (sender_kind system) cost nothing.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { countTokens } from '../../../common/tokens';
import { DatasetError, EXCLUDED_SESSION } from '../input/datasetError';
import { forEachJsonLine, parseDatasetRow } from '../input/jsonLines';

export interface MemberCounts {
  tokens: number;
  turns: number;
}

export interface RoomCounts {
  /** By the person's pseudonymous session id. */
  people: Map<string, MemberCounts>;
  agentTokens: number;
  agentTurns: number;
  /** Researcher messages among the agent side's (a researcher spoke as an agent). */
  researcherTurns: number;
}

const roomRowSchema = z.object({
  group_id: z.string().min(1),
  session_id: z.string().min(1).nullable().optional(),
  sender_kind: z.enum(['participant', 'agent', 'researcher', 'system']),
  text: z.string().nullable().optional(),
  tokens: z.number().int().nonnegative().nullable().optional(),
});

const emptyRoom = (): RoomCounts => ({ people: new Map(), agentTokens: 0, agentTurns: 0, researcherTurns: 0 });

/**
 * Reads the room rows of `path` (no file: no rooms). `sessionIndex` holds every session of sessions.csv (left-out
 * ones as EXCLUDED_SESSION): a person's row names one of them, or the line is an error.
 */
export function readRoomCounts(path: string, sessionIndex: ReadonlyMap<string, number>): Map<string, RoomCounts> {
  const rooms = new Map<string, RoomCounts>();
  if (!existsSync(path)) return rooms;
  forEachJsonLine(path, (json, line, file) => {
      const groupId = (json as { group_id?: unknown } | null)?.group_id;
      if (groupId === null || groupId === undefined || groupId === '') return; // a single session's row
      const m = parseDatasetRow(roomRowSchema, json, file, line);
      if (m.sender_kind === 'system') return;
      const room = rooms.get(m.group_id) ?? emptyRoom();
      rooms.set(m.group_id, room);
      const tokens = m.tokens ?? countTokens(m.text ?? '');
      if (m.sender_kind !== 'participant') {
        room.agentTokens += tokens;
        room.agentTurns += 1;
        if (m.sender_kind === 'researcher') room.researcherTurns += 1;
        return;
      }
      if (!m.session_id) throw new DatasetError(file, line, 'session_id', 'a participant\'s room message needs the sender\'s session_id');
      const s = sessionIndex.get(m.session_id);
      if (s === undefined) throw new DatasetError(file, line, 'session_id', `session id ${JSON.stringify(m.session_id)} is not in sessions.csv`);
      if (s === EXCLUDED_SESSION) return;
      const member = room.people.get(m.session_id) ?? { tokens: 0, turns: 0 };
      member.tokens += tokens;
      member.turns += 1;
      room.people.set(m.session_id, member);
    });
  return rooms;
}
