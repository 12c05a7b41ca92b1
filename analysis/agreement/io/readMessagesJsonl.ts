import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from './inputError';

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
  if (!existsSync(file)) throw new InputError('file not found', file);
  const bySession = new Map<string, z.output<typeof MessageLine>[]>();
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      if (raw.trim() === '') return;
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch (error) {
        throw new InputError(`not valid JSON: ${(error as Error).message}`, file, index + 1);
      }
      const parsed = MessageLine.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new InputError(issue.message, file, index + 1, issue.path.join('.') || undefined);
      }
      if (parsed.data.role !== 'user' && parsed.data.role !== 'assistant') return;
      const list = bySession.get(parsed.data.session_id) ?? [];
      list.push(parsed.data);
      bySession.set(parsed.data.session_id, list);
    });
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
