import type { SessionDetail } from '../../common/admin';
import { LONG_AWAY_S, MIN_TEXT_CHARS, MOSTLY_PASTED_SHARE, NO_TYPING_RATIO, type IntegrityFlag } from '../../common/integrityFlags';

const FLAG_MEANING: Record<IntegrityFlag, string> = {
  mostly_pasted: `at least ${MOSTLY_PASTED_SHARE * 100}% of the final text (≥ ${MIN_TEXT_CHARS} characters) was pasted`,
  no_typing: `fewer than ${NO_TYPING_RATIO * 100}% of the final text's characters (≥ ${MIN_TEXT_CHARS}) were typed`,
  long_away: `the page was hidden or unfocused for ${LONG_AWAY_S} s or more in total`,
};

const percent = (x: number | null) => (x === null ? '–' : `${Math.round(x * 100)}%`);
const ms = (x: number | null) => (x === null ? '–' : `${Math.round(x)} ms`);

/** Integrity telemetry of one session: pastes, typing, time away, browser class and the flags they raise. */
export function IntegritySection({ detail }: { detail: SessionDetail }) {
  const m = detail.integrity ?? null;
  return (
    <section className="card" aria-labelledby="integrity-title" data-testid="integrity">
      <h2 id="integrity-title">Integrity</h2>
      {m === null ? (
        <p className="hint">No telemetry from this session (a session from before telemetry, or a client that sent none).</p>
      ) : (
        <>
          {m.flags.length === 0 ? (
            <p data-testid="integrity-flags">No flag raised.</p>
          ) : (
            <ul className="admin-flags" data-testid="integrity-flags" aria-label="Raised flags">
              {m.flags.map((f) => (
                <li key={f}>
                  <strong className="admin-chip">{f}</strong> {FLAG_MEANING[f]}
                </li>
              ))}
            </ul>
          )}
          <dl className="admin-facts">
            <div><dt>pasted</dt><dd>{m.pastedChars} characters in {m.pasteCount} paste(s): {percent(m.pastedShare)} of the final text ({percent(m.artifactPastedShare)} of the answer)</dd></div>
            <div><dt>typed</dt><dd>{m.typedChars} characters for {m.finalChars} of final text ({m.typedRatio === null ? '–' : m.typedRatio.toFixed(2)} typed per final character)</dd></div>
            <div><dt>key intervals</dt><dd>median {ms(m.keyIntervalMedianMs)}, mean {ms(m.keyIntervalMeanMs)}, SD {ms(m.keyIntervalSdMs)}</dd></div>
            <div><dt>away</dt><dd>{m.awayCount} time(s), {m.awayS} s in total</dd></div>
            <div><dt>browser</dt><dd>{m.device}, {m.browser}</dd></div>
          </dl>
          <p className="hint">Screening aids for a closer look, not proof. Never recorded: what was typed or pasted, which keys, the raw browser string. {m.batches} telemetry batch(es).</p>
        </>
      )}
    </section>
  );
}
