import { z } from 'zod';
// one tokenizer for the whole project (o200k_base, special-token text counted as text)
import { countTokens } from '../../../common/tokens';
import { DatasetError, EXCLUDED_SESSION } from './datasetError';
import { forEachJsonLine, parseDatasetRow } from './jsonLines';
import type { CountColumn } from './sessionsFile';

const messageSchema = z.object({
  session_id: z.string().min(1).nullable(),
  /** A group room's message (docs/groups.md): counted per group by groups/roomMessages.ts, not per session. */
  group_id: z.string().min(1).optional().nullable(),
  role: z.string().min(1),
  text: z.string().optional().nullable(),
  tokens: z.number().int().nonnegative().optional().nullable(),
});

/**
 * Per-session user/agent token and turn counts from messages.jsonl: role "user" → user, role
 * "assistant"/"agent" → agent, other roles ignored. A message's stored `tokens` is used when present,
 * else its text is counted with o200k_base. Sessions without messages get 0. Group room rows (a group_id) are
 * skipped: an agent's row there has no session, and the group analysis counts them per group.
 */
export function countsFromMessages(path: string, sessionIndex: Map<string, number>, n: number): Record<CountColumn, Float64Array> {
  const counts: Record<CountColumn, Float64Array> = {
    user_tokens: new Float64Array(n),
    agent_tokens: new Float64Array(n),
    user_turns: new Float64Array(n),
    agent_turns: new Float64Array(n),
  };
  forEachJsonLine(path, (json, line, file) => {
    const m = parseDatasetRow(messageSchema, json, file, line);
    if (m.group_id) return;
    if (m.session_id === null) throw new DatasetError(file, line, 'session_id', 'empty outside a group room (no group_id)');
    const s = sessionIndex.get(m.session_id);
    if (s === undefined) throw new DatasetError(file, line, 'session_id', `session id ${JSON.stringify(m.session_id)} is not in sessions.csv`);
    if (s === EXCLUDED_SESSION) return;
    const side = m.role === 'user' ? 'user' : m.role === 'assistant' || m.role === 'agent' ? 'agent' : null;
    if (side === null) return;
    const tokens = m.tokens ?? countTokens(m.text ?? '');
    counts[`${side}_tokens`][s]! += tokens;
    counts[`${side}_turns`][s]! += 1;
  });
  return counts;
}
