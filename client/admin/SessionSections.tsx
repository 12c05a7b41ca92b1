import type { SessionDetail } from '../../common/admin';
import { formatTime } from './format';

/** Every submitted version of the artifact; image fields show the uploaded image. */
export function ArtifactVersions({ detail }: { detail: SessionDetail }) {
  const versions = [...detail.artifactVersions].sort((a, b) => b.version - a.version);
  return (
    <section className="card" aria-labelledby="artifact-title">
      <h2 id="artifact-title">Artifact versions</h2>
      {versions.length === 0 && <p className="hint">Nothing submitted yet.</p>}
      {versions.map((a, i) => (
        <details key={a.version} className="admin-artifact" open={i === 0}>
          <summary>
            Version {a.version}{i === 0 ? ' (latest)' : ''} · submitted {formatTime(a.submittedAt)}
          </summary>
          <dl className="admin-fields">
            {Object.entries(a.fields).map(([field, value]) => {
              const upload = detail.uploads.find((u) => u.id === value);
              return (
                <div key={field}>
                  <dt>{field}</dt>
                  <dd>
                    {upload ? (
                      <img src={upload.url} alt={`${field}: image uploaded by the participant`} className="admin-image" />
                    ) : value.trim() === '' ? (
                      <span className="hint">(empty)</span>
                    ) : (
                      <div className={`admin-msg-text admin-value${value.includes('\n') ? ' admin-value-multiline' : ''}`}>{value}</div>
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
        </details>
      ))}
    </section>
  );
}

export function SurveyAnswers({ detail }: { detail: SessionDetail }) {
  return (
    <section className="card" aria-labelledby="survey-title">
      <h2 id="survey-title">Survey</h2>
      {detail.survey.length === 0 ? (
        <p className="hint">Not answered yet.</p>
      ) : (
        <table className="admin-table">
          <caption className="visually-hidden">Survey answers</caption>
          <thead><tr><th scope="col">item</th><th scope="col">kind</th><th scope="col">answer</th></tr></thead>
          <tbody>
            {detail.survey.map((a) => (
              <tr key={a.itemId}>
                <th scope="row">
                  {a.prompt ?? a.itemId}
                  {a.prompt && <span className="hint admin-id"> ({a.itemId})</span>}
                </th>
                <td>{a.kind.replace(/_/g, ' ')}</td>
                <td className="admin-msg-text" data-testid="survey-answer">
                  {a.value === null || a.value === '' ? <span className="hint">(no answer)</span> : (a.valueLabel ?? `${a.value}`)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function JudgeSamples({ detail }: { detail: SessionDetail }) {
  const samples = detail.judge.samples;
  return (
    <section className="card" aria-labelledby="judge-title">
      <h2 id="judge-title">Judge samples</h2>
      {samples.length === 0 ? (
        <p className="hint">
          Not judged yet. Use <strong>Run the judge</strong> on the study page (or <code>npm run judge -- --study {detail.session.studyId}</code>).
        </p>
      ) : (
        <>
          <p>
            Quality Q = <strong>{detail.judge.quality ?? '—'}</strong> from {samples.length} sample{samples.length === 1 ? '' : 's'}
            {samples.some((j) => !j.parseOk) && `, ${samples.filter((j) => !j.parseOk).length} unparsed`}.
          </p>
          <table className="admin-table">
            <caption className="visually-hidden">Judge samples</caption>
            <thead>
              <tr><th scope="col" className="num">version</th><th scope="col">rubric</th><th scope="col">model</th><th scope="col" className="num">sample</th><th scope="col" className="num">score</th></tr>
            </thead>
            <tbody>
              {samples.map((j, i) => (
                <tr key={i}>
                  <td className="num">{j.artifactVersion}</td>
                  <td>{j.rubricId}</td>
                  <td>{j.model}</td>
                  <td className="num">{j.sample}</td>
                  <td className="num">{j.score ?? (j.parseOk ? '—' : <span className="error">unparsed</span>)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
