import { describe, expect, it } from 'vitest';
import { parseSeatReply, SEAT_NOTES, seatBriefText, seatLastText, seatPostText, seatRoundText } from './seatReply';

describe('the seat reply format', () => {
  it('reads back the brief, the round and each post, a post keeping its paragraphs', () => {
    const text = [
      seatBriefText('You plan the route.\n\n--- map ---\nA to B'),
      seatRoundText(1, 4, SEAT_NOTES.team),
      seatPostText('Dana', 'teammate', 'Morning.\n\nSecond paragraph.'),
      seatPostText('Flood desk', 'environment', 'Bridge closed.'),
    ].join('\n\n');
    expect(parseSeatReply(text)).toEqual([
      { kind: 'brief', text: 'You plan the route.\n\n--- map ---\nA to B' },
      { kind: 'round', round: 1, rounds: 4, note: SEAT_NOTES.team },
      { kind: 'post', speaker: 'Dana', seat: 'teammate', text: 'Morning.\n\nSecond paragraph.' },
      { kind: 'post', speaker: 'Flood desk', seat: 'environment', text: 'Bridge closed.' },
    ]);
    expect(parseSeatReply(seatLastText())).toEqual([{ kind: 'last', note: SEAT_NOTES.last }]);
  });

  it('is not a seat reply unless it starts with a header, or when free text follows a round marker', () => {
    expect(parseSeatReply('Dana: Morning.')).toBeNull();
    expect(parseSeatReply('Sure! **Round 1 of 4** is next.')).toBeNull();
    expect(parseSeatReply(`${seatRoundText(1, 4, SEAT_NOTES.quiet)}\n\nsomething else`)).toBeNull();
    expect(parseSeatReply('')).toBeNull();
  });

  it('keeps a speaker name plain, so the header survives', () => {
    expect(parseSeatReply(seatPostText('**Bo**\nX', 'teammate', 'hi'))).toEqual([{ kind: 'post', speaker: 'Bo X', seat: 'teammate', text: 'hi' }]);
  });
});
