/**
 * Above the consent of a session just started from a link without a per-visit id: the server starts a fresh
 * session for such a link whether or not its participant id took part (docs/data-protection.md, "Resuming a
 * session"), so someone who started before in another browser is offered their resume code here.
 */
export function ResumeOffer({ onResume }: { onResume: () => void }) {
  return (
    <section className="card resume-offer" data-testid="resume-offer">
      <p>
        Started this study before in another browser?{' '}
        <button type="button" className="link-button" onClick={onResume}>
          Continue that session with its resume code
        </button>
      </p>
    </section>
  );
}
