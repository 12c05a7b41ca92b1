/**
 * The seat's replies in both of their written forms, replayed offline (offline judges, the reply cache in
 * memory): the structured form the browser reads (common/seatReply.ts), and the "Name: message" form sessions
 * stored before it, which `from-study` compares old sessions with so they raise no replay_mismatch.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSeatReply, SEAT_NOTES } from '../../../common/seatReply';
import { TeamworkSeat } from '../../../common/study';
import { ModelClients } from '../runner/clients';
import { memoryReplyCache } from './memoryReplyCache';
import { replaySeat } from './seatReplay';
import { seatContext } from './teammateProvider';
import { seatTask } from './seatTask';

const TASK = path.resolve(import.meta.dirname, '../../../teamwork/tasks/suite/info-flood-route.yaml');

async function replay(arm: 'alone' | 'test', lines: string[]) {
  const task = seatTask(TASK);
  const seat = TeamworkSeat.parse({ task: TASK, arm });
  const ctx = seatContext(new ModelClients([task], memoryReplyCache(), { env: {} }), seat);
  return replaySeat(task, arm, lines.map((text) => ({ text })), ctx);
}

describe('seat replies, structured and legacy', () => {
  it('test arm: the brief and round 1, then the round marker and Dana; the legacy form as stored before', async () => {
    const r = await replay('test', ['ready', 'Any road closures or alerts on route 9?', 'route 12', 'ok', 'done', 'one more']);
    expect(r.replies).toHaveLength(6);
    const first = parseSeatReply(r.replies[0]!)!;
    expect(first.map((p) => p.kind)).toEqual(['brief', 'round', 'post']);
    expect(first[0]).toMatchObject({ kind: 'brief', text: expect.stringContaining('Their messages appear in the chat under their names.') });
    expect(r.legacyReplies[0]).toContain('You are working with: Dana. Their messages reach you here as "Name: message".');
    expect(r.legacyReplies[0]).toMatch(/\n\nDana: Morning\. Convoy is loaded and the drivers are ready\.$/);
    expect(parseSeatReply(r.replies[1]!)).toEqual([
      { kind: 'round', round: 2, rounds: 4, note: SEAT_NOTES.team },
      { kind: 'post', speaker: 'Dana', seat: 'teammate', text: expect.stringContaining('there is a flood warning') },
    ]);
    expect(r.legacyReplies[1]).toMatch(/^Dana: Now that you ask about the roads/);
    // After the last round, and beyond it.
    expect(parseSeatReply(r.replies[4]!)).toEqual([{ kind: 'last', note: SEAT_NOTES.last }]);
    expect(r.legacyReplies[5]).toBe('(That was your last turn. The team is waiting for your answer: write it in the answer form and submit it.)');
  });

  it('a round where nobody posts says so, in the structured form; the legacy form is the old nudge', async () => {
    const r = await replay('test', ['ready', 'hello', 'what now?']);
    const quiet = r.replies.findIndex((text) => parseSeatReply(text)?.some((p) => p.kind === 'round' && p.note === SEAT_NOTES.quiet));
    expect(quiet).toBeGreaterThan(0);
    expect(r.legacyReplies[quiet]).toBe('(No new messages. Continue, and submit when you are ready.)');
  });

  it('alone arm: no posts, and every round says nobody answers', async () => {
    const r = await replay('alone', ['ready', 'thinking: route 12']);
    for (const text of r.replies) expect(parseSeatReply(text)!.filter((p) => p.kind === 'post')).toEqual([]);
    expect(parseSeatReply(r.replies[1]!)).toEqual([{ kind: 'round', round: 2, rounds: 4, note: SEAT_NOTES.alone }]);
  });
});
