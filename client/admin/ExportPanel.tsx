import { useState } from 'react';
import type { ExportProgress } from '../../common/admin';
import { adminApi } from './api';
import { formatCount } from './format';

/** Exports the study's dataset (design.md layout) and downloads it as a zip. */
export function ExportPanel({ studyId, progress, onDone }: { studyId: string; progress: ExportProgress | null; onDone: () => void }) {
  const [includePilot, setIncludePilot] = useState(false);
  const [includeIdentities, setIncludeIdentities] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const run = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const ticket = await adminApi.exportStudy(studyId, { includePilot, includeIdentities });
      setMessage({
        text: `Exported ${formatCount(ticket.sessions)} session(s) (${formatCount(ticket.redactions)} redaction${ticket.redactions === 1 ? '' : 's'}). The zip is downloading.`,
        error: false,
      });
      // A plain navigation streams the zip straight to disk (no blob in memory).
      const a = document.createElement('a');
      a.href = ticket.downloadUrl;
      a.download = '';
      document.body.appendChild(a);
      a.click();
      a.remove();
      onDone();
    } catch (e) {
      setMessage({ text: (e as Error).message, error: true });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p className="hint">
        The anonymised dataset: <code>sessions.csv</code>, <code>messages.jsonl</code>, <code>events.jsonl</code>, artifacts, judgements, annotations,
        with <code>manifest.json</code>, <code>codebook.md</code> and <code>datapackage.json</code>. Session ids are pseudonyms; personal data in text is redacted.
      </p>
      <div className="admin-checks">
        <label className="admin-check">
          <input type="checkbox" checked={includePilot} onChange={(e) => setIncludePilot(e.target.checked)} /> Include pilot sessions
        </label>
        <label className="admin-check">
          <input type="checkbox" checked={includeIdentities} onChange={(e) => setIncludeIdentities(e.target.checked)} aria-describedby="identities-warning" />{' '}
          Include <code>identities.csv</code> (personal data)
        </label>
        {includeIdentities && (
          <p className="admin-warning" id="identities-warning">
            The zip will hold personal data: the participants' platform ids and study-link parameters. Store it as your ethics approval requires and never share it with the science files.
          </p>
        )}
      </div>
      <div className="actions">
        <button type="button" onClick={() => void run()} disabled={busy} aria-busy={busy}>Export dataset (zip)</button>
        {busy && <span className="hint">Exporting…</span>}
      </div>
      {busy && progress && progress.total > 0 && (
        <p className="admin-progress">
          <progress max={progress.total} value={progress.done} aria-label="export progress" /> {formatCount(progress.done)} / {formatCount(progress.total)} sessions
        </p>
      )}
      {message && <p role={message.error ? 'alert' : 'status'} className={message.error ? 'error-box' : 'success'} data-testid="export-message">{message.text}</p>}
    </section>
  );
}
