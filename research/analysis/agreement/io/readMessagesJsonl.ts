import { z } from 'zod';
import { readJsonlRecords } from './readJsonlRecords';

const MessageLine = z.object({
  session_id: z.string().min(1),
  seq: z.number().int(),
  role: z.string(),
  text: z.string().nullable().optional(),
});

export interface Utterance {
  session_id: string;
  /** 0-based index of the utterance among the session's user and assistant messages, by seq */
  turn: number;
  speaker: 'user' | 'agent';
  text: string;
}

/**
 * The dataset's utterances in annotation order: per session, user and assistant messages sorted by
 * seq and numbered from 0 (the `turn` of annotations.csv); other roles (system, tool) are skipped.
 */
export function readUtterances(file: string): Utterance[] {
  const bySession = new Map<string, z.output<typeof MessageLine>[]>();
  for (const { value } of readJsonlRecords(file, MessageLine)) {
    if (value.role !== 'user' && value.role !== 'assistant') continue;
    const list = bySession.get(value.session_id) ?? [];
    list.push(value);
    bySession.set(value.session_id, list);
  }
  const utterances: Utterance[] = [];
  for (const [sessionId, messages] of bySession) {
    messages
      .sort((x, y) => x.seq - y.seq)
      .forEach((m, turn) =>
        utterances.push({ session_id: sessionId, turn, speaker: m.role === 'user' ? 'user' : 'agent', text: m.text ?? '' }),
      );
  }
  return utterances;
}
