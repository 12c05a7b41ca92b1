/**
 * How the teammates' reply of a teamwork-seat condition is written (research/teamwork/seat/seatReplay.ts) and
 * read back by the participant's browser (client/participant/chat/): plain markdown that reads well in a
 * transcript or an export, with one header line per part so the chat can show the brief as the task's
 * instructions, each teammate as their own speaker, environment posts as notices and the round as a marker.
 *
 *     **Your brief**
 *     You plan the route…
 *     **Round 1 of 4** · Your turn: write to your team, or submit your answer in the form.
 *     **Dana** (teammate): Morning. Convoy is loaded…
 *     **Flood desk** (environment): Bridge at Kell closed.
 *
 * A header is a whole line; everything up to the next header belongs to the part above it (a teammate's
 * message may span paragraphs). Text that does not start with a header is not a seat reply.
 */

export type SeatPostKind = 'teammate' | 'environment';

export type SeatPart =
  | { kind: 'brief'; text: string }
  | { kind: 'round'; round: number; rounds: number; note: string }
  | { kind: 'last'; note: string }
  | { kind: 'post'; speaker: string; seat: SeatPostKind; text: string };

const BRIEF = '**Your brief**';
const ROUND = /^\*\*Round (\d+) of (\d+)\*\*(?: · (.*))?$/;
const LAST = /^\*\*After the last round\*\*(?: · (.*))?$/;
const POST = /^\*\*([^*\n]{1,80})\*\* \((teammate|environment)\): ?(.*)$/;

/** The note beside a round's marker: what is expected of the participant now. */
export const SEAT_NOTES = {
  team: 'Your turn: write to your team, or submit your answer in the form when you have decided.',
  quiet: 'Nobody on your team posted this round. Your turn: write to your team, or submit your answer in the form when you have decided.',
  alone: 'You work on your own in this task: nobody reads or answers these messages. Submit your answer in the form when you have decided.',
  last: 'That was your last turn. The team is waiting for your answer: write it in the answer form and submit it.',
} as const;

export function seatBriefText(brief: string): string {
  return `${BRIEF}\n\n${brief.trim()}`;
}

export function seatRoundText(round: number, rounds: number, note: string): string {
  return `**Round ${round} of ${rounds}** · ${note}`;
}

export function seatLastText(): string {
  return `**After the last round** · ${SEAT_NOTES.last}`;
}

export function seatPostText(speaker: string, seat: SeatPostKind, text: string): string {
  // A name with markdown emphasis or a line break would not survive the header: keep it plain.
  const name = speaker.replace(/[*\s]+/g, ' ').trim().slice(0, 80) || 'Teammate';
  return `**${name}** (${seat}): ${text.trim()}`;
}

/** The parts of a seat reply, in order, or null when `text` is not one (any other assistant's reply). */
export function parseSeatReply(text: string): SeatPart[] | null {
  const lines = text.split('\n');
  const parts: SeatPart[] = [];
  let body: string[] | null = null;
  const close = () => {
    const last = parts.at(-1);
    if (body && last && (last.kind === 'brief' || last.kind === 'post')) last.text = [last.text, ...body].join('\n').trim();
    body = null;
  };
  for (const [i, line] of lines.entries()) {
    let m: RegExpExecArray | null;
    if (line === BRIEF) {
      close();
      parts.push({ kind: 'brief', text: '' });
      body = [];
    } else if ((m = ROUND.exec(line))) {
      close();
      parts.push({ kind: 'round', round: Number(m[1]), rounds: Number(m[2]), note: m[3] ?? '' });
    } else if ((m = LAST.exec(line))) {
      close();
      parts.push({ kind: 'last', note: m[1] ?? '' });
    } else if ((m = POST.exec(line))) {
      close();
      parts.push({ kind: 'post', speaker: m[1]!, seat: m[2] as SeatPostKind, text: m[3] ?? '' });
      body = [];
    } else if (i === 0) {
      return null;
    } else if (body) {
      body.push(line);
    } else if (line.trim() !== '') {
      // Free text after a round marker: not written by the seat, so not a seat reply.
      return null;
    }
  }
  close();
  return parts.length > 0 ? parts : null;
}
