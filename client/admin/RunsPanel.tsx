import { useEffect, useState } from 'react';
import type { RunKind, RunProgress } from '../../common/admin';
import { adminApi } from './api';

const LABELS: Record<RunKind, { button: string; what: string }> = {
  judge: { button: 'Run the judge', what: 'Scores every submitted artifact with the LLM judge (3 samples each; quality Q is their median).' },
  analysis: { button: 'Run the analysis', what: 'Exports the non-pilot sessions and computes cost C, quality Q, Pz and the report below.' },
};

/** Judge and analysis buttons with live progress, and the analysis report (server-rendered SVG plots) in a sandboxed frame. */
export function RunsPanel({ studyId, runs }: { studyId: string; runs: Partial<Record<RunKind, RunProgress>> }) {
  const [known, setKnown] = useState<Partial<Record<RunKind, RunProgress>>>({});
  const [hasReport, setHasReport] = useState(false);
  const [reportVersion, setReportVersion] = useState(0);
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => {
    adminApi.runs(studyId).then(
      (r) => {
        setHasReport(r.hasReport);
        setKnown({ ...(r.judge ? { judge: r.judge } : {}), ...(r.analysis ? { analysis: r.analysis } : {}) });
      },
      () => undefined,
    );
  }, [studyId, runs.analysis?.state]);
  useEffect(() => {
    if (runs.analysis?.state === 'done') setReportVersion((v) => v + 1);
  }, [runs.analysis?.state]);
  const latest = (kind: RunKind) => runs[kind] ?? known[kind];

  const start = async (kind: RunKind) => {
    setMessage(null);
    try {
      await adminApi.startRun(studyId, kind);
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
