import { useEffect, useState } from 'react';
import type { RunKind, RunProgress } from '../../common/admin';
import { adminApi } from './api';

const LABELS: Record<RunKind, { button: string; what: string }> = {
  judge: { button: 'Run the judge', what: 'Scores every submitted artifact with the LLM judge (3 samples each; quality Q is their median).' },
  analysis: { button: 'Run the analysis', what: 'Exports the non-pilot sessions and computes cost C, quality Q, Pz and the report below.' },
};

/** Judge and analysis buttons with live progress, and the analysis report (server-rendered SVG plots) in a sandboxed frame. */
export function RunsPanel({ studyId, runs, refresh = 0 }: { studyId: string; runs: Partial<Record<RunKind, RunProgress>>; refresh?: number }) {
  const [known, setKnown] = useState<Partial<Record<RunKind, RunProgress>>>({});
  const [hasReport, setHasReport] = useState(false);
  const [reportVersion, setReportVersion] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  // Labels of the study's image fields: the choice to show the images to the judge is offered only when there are some.
  const [imageFields, setImageFields] = useState<string[]>([]);
  const [attachImages, setAttachImages] = useState(false);
  useEffect(() => {
    adminApi.runs(studyId).then(
      (r) => {
        setHasReport(r.hasReport);
        setImageFields(r.imageFields);
        setKnown({ ...(r.judge ? { judge: r.judge } : {}), ...(r.analysis ? { analysis: r.analysis } : {}) });
      },
      () => undefined,
    );
  }, [studyId, runs.analysis?.state, refresh]);
  useEffect(() => {
    if (runs.analysis?.state === 'done') setReportVersion((v) => v + 1);
  }, [runs.analysis?.state]);
  const latest = (kind: RunKind) => runs[kind] ?? known[kind];

  const start = async (kind: RunKind) => {
    setMessage(null);
    try {
      if (kind === 'judge') await adminApi.startJudge(studyId, { images: attachImages && imageFields.length > 0 ? 'attach' : 'describe' });
      else await adminApi.startRun(studyId, kind);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const line = (kind: RunKind) => {
    const r = latest(kind);
    if (!r) return <p className="hint">{LABELS[kind].what} Not run since the server started.</p>;
    return (
      <div>
        <p role="status" data-testid={`run-${kind}`} className={`admin-run admin-run-${r.state}`}>
          {kind}: {r.state} — {r.message}
        </p>
        {kind === 'analysis' && r.state === 'done' && !hasReport && (
          <p className="admin-warning" data-testid="run-analysis-stale">
            Its report is gone: a withdrawal removes the report, which may still count that person. Run the analysis again for a new one.
          </p>
        )}
        {r.state === 'running' && r.total > 0 && <progress max={r.total} value={r.done} aria-label={`${kind} progress`} />}
      </div>
    );
  };
  return (
    <section className="card" aria-labelledby="runs-title">
      <h2 id="runs-title">Judge and analysis</h2>
      <div className="admin-runs">
        {(['judge', 'analysis'] as const).map((kind) => (
          <div key={kind} className="admin-run-box">
            <button type="button" onClick={() => void start(kind)} disabled={latest(kind)?.state === 'running'}>{LABELS[kind].button}</button>
            {kind === 'judge' && imageFields.length > 0 && (
              <label className="admin-check">
                <input type="checkbox" checked={attachImages} onChange={(e) => setAttachImages(e.target.checked)} aria-describedby={attachImages ? 'judge-images-note' : undefined} /> Show uploaded
                images to the judge (vision model; images are not redacted)
              </label>
            )}
            {kind === 'judge' && attachImages && imageFields.length > 0 && (
              <p className="admin-warning" id="judge-images-note">
                The judge model will see {imageFields.join(', ')} as uploaded. Images can show personal data and are sent to the model provider
                as they are; the judge needs a vision model.
              </p>
            )}
            {line(kind)}
          </div>
        ))}
      </div>
      {message && <p className="error-box" role="alert">{message}</p>}
      <h3 className="admin-report-title">
        Analysis report
        {hasReport && (
          <a className="admin-small-link" href={adminApi.reportUrl(studyId, reportVersion)} target="_blank" rel="noopener noreferrer">
            open in a new tab
          </a>
        )}
      </h3>
      {hasReport ? (
        <iframe key={reportVersion} title="Analysis report" className="admin-report" sandbox="" src={adminApi.reportUrl(studyId, reportVersion)} />
      ) : (
        <p className="hint">No report yet. Run the judge (quality scores are needed for Pz), then the analysis.</p>
      )}
    </section>
  );
}
