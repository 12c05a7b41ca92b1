import { memo } from 'react';
import type { SeatPart } from '../../../common/seatReply';
import { SafeMarkdown } from './SafeMarkdown';

/** A stable colour per speaker name, so each teammate keeps their avatar colour through the chat. */
function avatarHue(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.codePointAt(0)!) % 360;
  return h;
}

function initials(name: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  return (words.length > 1 ? `${words[0]![0]}${words[1]![0]}` : (words[0] ?? '?').slice(0, 2)).toUpperCase();
}

/**
 * A teammates' reply in a teamwork seat (common/seatReply.ts), as the parts a person reads: a marker for the
 * round with what is expected now, and each teammate's or environment's post as its own speaker with a
 * name and avatar. The brief is not shown here: the workspace shows it with the task's instructions.
 */
export const SeatReply = memo(function SeatReply({ parts, latest }: { parts: SeatPart[]; latest: boolean }) {
  return (
    <>
      {parts.map((part, i) => {
        if (part.kind === 'brief')
          return (
            <li key={i} className="seat-marker" data-testid="seat-brief-note">
              Your brief has arrived: it is shown with the task instructions.
            </li>
          );
        if (part.kind === 'round' || part.kind === 'last')
          return (
            <li key={i} className={`seat-marker${latest ? ' current' : ''}`} data-testid="seat-round">
              <strong>{part.kind === 'round' ? `Round ${part.round} of ${part.rounds}` : 'After the last round'}</strong>
              {part.note && <span> {part.note}</span>}
            </li>
          );
        const environment = part.seat === 'environment';
        return (
          <li key={i} className={`message assistant seat-post ${environment ? 'seat-environment' : 'seat-teammate'}`} data-testid="seat-post" data-speaker={part.speaker}>
            <span className="seat-avatar" aria-hidden="true" style={environment ? undefined : { background: `hsl(${avatarHue(part.speaker)} 55% 38%)` }}>
              {environment ? '!' : initials(part.speaker)}
            </span>
            <div className="seat-body">
              <div className="who">{environment ? `${part.speaker} · notice` : part.speaker}</div>
              <SafeMarkdown text={part.text} />
            </div>
          </li>
        );
      })}
    </>
  );
});
