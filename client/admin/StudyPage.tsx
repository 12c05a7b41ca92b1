import { useCallback, useEffect, useState } from 'react';
import type { AuditEntryView, StudySummary } from '../../common/admin';
import type { StudyStatus } from '../../common/http';
import { prolificStudyLink } from '../../common/studyLink';
import { adminApi } from './api';
import { AdminLink, PageHeading, pageTitle } from './AdminLink';
import { AuditLog } from './AuditLog';
import { CountsTable } from './CountsTable';
import { DashboardPlots } from './DashboardPlots';
import { ExportPanel } from './ExportPanel';
import { LiveMonitor } from './LiveMonitor';
import { RunsPanel } from './RunsPanel';
import { StatusBadge, STUDY_STATUS_HELP } from './StatusBadge';
import { useAdminSocket } from './useAdminSocket';
import { useLiveVersion } from './useLiveVersion';
import { WithdrawPanel } from './WithdrawPanel';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { PreregistrationPanel } from './PreregistrationPanel';
import { preregistrationApi } from './preregistrationApi';
import { LockBeforeLiveDialog, type LockChoice } from './LockBeforeLiveDialog';

const STATUSES: StudyStatus[] = ['draft', 'pilot', 'live', 'closed'];

/** One study: status (pilot switch), counts, live monitor, dashboard plots, export, judge and analysis, withdrawal, audit log. */
export function StudyPage({ studyId }: { studyId: string }) {
  const [study, setStudy] = useState<StudySummary | null | undefined>(undefined);
  const [audit, setAudit] = useState<AuditEntryView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Counts withdrawals on this page: the runs panel reloads (a withdrawal removes the analysis report). */
  const [withdrawals, setWithdrawals] = useState(0);
  const live = useAdminSocket(studyId);
  // Bumped when the status control locks the plan, so the pre-registration panel reloads.
  const [preregVersion, setPreregVersion] = useState(0);
  const liveVersion = useLiveVersion(live.snapshot, live.runs);

  const reload = useCallback(() => {
    adminApi.studies().then(
      (list) => setStudy(list.find((s) => s.id === studyId) ?? null),
      (e: Error) => setError(e.message),
    );
    adminApi.audit(studyId).then(setAudit, () => setAudit([]));
  }, [studyId]);
  useEffect(reload, [reload]);
  // Counts change as sessions start and end: refresh them with the monitor (at most every few seconds).
  const lastEvent = live.snapshot?.sessions.map((s) => `${s.sessionId}:${s.status}`).join(',');
  useEffect(() => {
    if (lastEvent === undefined) return;
    const timer = setTimeout(() => adminApi.studies().then((list) => setStudy((old) => list.find((s) => s.id === studyId) ?? old ?? null), () => undefined), 1500);
    return () => clearTimeout(timer);
  }, [lastEvent, studyId]);
  useEffect(() => {
    document.title = pageTitle(study?.title ?? studyId);
  }, [study?.title, studyId]);

  if (error) return <p className="error-box" role="alert">{error}</p>;
  if (study === undefined) return <p className="page-status" role="status">Loading…</p>;
  if (study === null)
    return (
      <>
        <h1>Study not found</h1>
        <p>There is no study “{studyId}”. <AdminLink to="/admin">Back to all studies</AdminLink></p>
      </>
    );

  return (
    <>
      <p className="admin-back"><AdminLink to="/admin">← all studies</AdminLink></p>
      <PageHeading className="admin-study-title">
        {study.title} <StatusBadge status={study.status} testId="study-status" />
      </PageHeading>
      <p className="hint admin-meta">
        <code>{study.id}</code> · tasks: {study.tasks.map((t) => t.title).join(', ') || '—'}
      </p>
      <StudyLinkNote study={study} />
      <div className="admin-grid">
        <StatusControl study={study} onChanged={() => { reload(); setPreregVersion((v) => v + 1); }} />
        <section className="card" aria-labelledby="counts-title">
          <h2 id="counts-title">Sessions by condition and outcome</h2>
          <CountsTable study={study} />
          <p className="hint">Pilot sessions are counted apart and are not part of the totals.</p>
          <p>
            <AdminLink to={`/admin/studies/${study.id}/sessions`}>All {study.totalSessions} sessions →</AdminLink>
          </p>
        </section>
      </div>
      <PreregistrationPanel studyId={studyId} version={preregVersion} onChanged={reload} />
      {live.error && <p className="error-box" role="alert">{live.error}</p>}
      <LiveMonitor snapshot={live.snapshot} connected={live.connected} />
      <DashboardPlots studyId={studyId} version={liveVersion} />
      <ExportPanel studyId={studyId} progress={live.exportProgress} onDone={reload} />
      <RunsPanel studyId={studyId} runs={live.runs} refresh={withdrawals} />
      <WithdrawPanel
        studyId={studyId}
        onDone={() => {
          reload();
          setWithdrawals((n) => n + 1);
        }}
      />
      <AuditLog entries={audit} />
    </>
  );
}

/**
 * The link to give Prolific (with its per-visit SESSION_ID), and a warning when sessions were opened from
 * a link without a per-visit id: those participants can reopen their session elsewhere only with their
 * resume code.
 */
function StudyLinkNote({ study }: { study: StudySummary }) {
  const link = prolificStudyLink(window.location.origin, study.id);
  return (
    <>
      <p className="hint admin-meta admin-study-link">
        Participant link for Prolific: <code data-testid="study-link">{link}</code> <CopyButton text={link} label="Copy the participant link" className="secondary" />
        {' '}(MTurk: <code>?workerId=…&amp;assignmentId=…&amp;hitId=…</code>)
      </p>
      <PreviewLink study={study} />
      {study.sessionsWithoutVisitId > 0 && (
        <p className="error-box" role="alert" data-testid="no-visit-id-warning">
          {study.sessionsWithoutVisitId} session{study.sessionsWithoutVisitId === 1 ? ' was' : 's were'} opened from a link without a per-visit id
          (Prolific <code>SESSION_ID</code>, MTurk <code>assignmentId</code>). Those participants can reopen their session in another browser only
          with the resume code shown in their session header. Share the link above, which includes <code>SESSION_ID</code>.
        </p>
      )}
    </>
  );
}

/**
 * "Preview as participant": a fresh visit of the study link in a new tab (its own made-up PROLIFIC_PID and
 * SESSION_ID), offered while the study is in pilot, so the session is marked pilot and left out of balance,
 * exports and analysis. In draft the link refuses visitors; live or closed, a preview would count as a participant.
 */
function PreviewLink({ study }: { study: StudySummary }) {
  const [visit] = useState(() => Math.random().toString(36).slice(2, 10));
  if (study.status !== 'pilot')
    return (
      <p className="hint admin-meta" data-testid="preview-note">
        Preview as participant: switch the study to <strong>pilot</strong> to open a test session (marked pilot, left out of the data).
      </p>
    );
  const href = `/study/${encodeURIComponent(study.id)}?PROLIFIC_PID=preview-${visit}&SESSION_ID=preview-${visit}`;
  return (
    <p className="admin-meta">
      <a href={href} target="_blank" rel="noopener" data-testid="preview-link">
        Preview as participant
      </a>{' '}
      <span className="hint">(opens a pilot session in a new tab)</span>
    </p>
  );
}

/** What switching to `to` does, for the confirmation; null when nothing to confirm (only draft and closed turn people away). */
export function statusChangeWarning(from: StudyStatus, to: StudyStatus, inProgress: number): string | null {
  if (from === to || (to !== 'draft' && to !== 'closed')) return null;
  const sessions =
    from === 'live' || from === 'pilot'
      ? `${inProgress === 0 ? 'No session is' : `${inProgress} session${inProgress === 1 ? ' is' : 's are'}`} in progress${inProgress > 0 ? ': they can finish (reloading keeps their session)' : ''}. `
      : '';
  const effect = to === 'draft' ? 'The study link will answer "not found" to new visitors' : 'New participants will be refused';
  return `Switch "${from}" to "${to}"? ${sessions}${effect}.`;
}

/** The study status, including the pilot switch; switching to draft or closed asks first, in an in-page dialog. */
function StatusControl({ study, onChanged }: { study: StudySummary; onChanged: () => void }) {
  const [status, setStatus] = useState<StudyStatus>(study.status);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const [question, setQuestion] = useState<string | null>(null);
  // Going live with a plan never locked: the in-page dialog asks to lock first (with the plan's problems, if any).
  const [lockQuestion, setLockQuestion] = useState<{ problems: string[] } | null>(null);
  // The server's status as this control last saw it. A newer one (a reload after a change, another admin's change)
  // becomes the choice only while the choice is still the old status: a reload that lands after the researcher
  // picked the next status must not undo the pick (it used to, leaving Apply disabled on the status just set).
  const [seen, setSeen] = useState<StudyStatus>(study.status);
  if (study.status !== seen) {
    setSeen(study.status);
    if (status === seen) setStatus(study.status);
  }
  const notChanged = () => setMessage({ text: 'Status not changed.', error: false });
  const switchStatus = async (lockFirst: LockChoice | null) => {
    setBusy(true);
    let locked = false;
    try {
      if (lockFirst?.kind === 'lock') {
        await preregistrationApi.lock(study.id);
        locked = true;
      }
      await adminApi.setStatus(study.id, { status, ...(lockFirst?.kind === 'opt_out' ? { preregistration_opt_out: lockFirst.reason } : {}) });
      setMessage({ text: `Status set to ${status}.${lockFirst?.kind === 'lock' ? ' The plan was locked first.' : ''}`, error: false });
      onChanged();
    } catch (e) {
      setMessage({ text: `${(e as Error).message}${locked ? ' (The plan was locked; the status was not changed.)' : ''}`, error: true });
      if (locked) onChanged(); // the pre-registration panel shows the new version
    } finally {
      setBusy(false);
    }
  };
  const change = async () => {
    setQuestion(null);
    if (status === 'live' && study.status !== 'live') {
      setBusy(true);
      try {
        const prereg = await preregistrationApi.status(study.id);
        if (prereg.planFile !== null && prereg.versions.length === 0) return setLockQuestion({ problems: prereg.planProblems });
      } catch (e) {
        return setMessage({ text: (e as Error).message, error: true });
      } finally {
        setBusy(false);
      }
    }
    await switchStatus(null);
  };
  const apply = async () => {
    setMessage(null);
    try {
      // Fresh count: the summary on screen may be a few seconds old.
      const fresh = (await adminApi.studies()).find((s) => s.id === study.id) ?? study;
      const warning = statusChangeWarning(fresh.status, status, fresh.sessionsInProgress);
      if (warning) setQuestion(warning);
      else await change();
    } catch (e) {
      setMessage({ text: (e as Error).message, error: true });
    }
  };
  return (
    <section className="card" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      <div className="admin-inline-form admin-status-form">
        <label htmlFor="study-status">Study status</label>
        <select
          id="study-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value as StudyStatus);
            setMessage(null); // "Status set to …" belongs to the last change, not to the new choice
          }}
          aria-describedby="study-status-help"
        >
          {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        <button type="button" onClick={() => void apply()} disabled={busy || status === study.status}>Apply</button>
      </div>
      <p className="hint" id="study-status-help">
        <strong>{status}</strong>: {STUDY_STATUS_HELP[status]}.
      </p>
      {message && <p role="status" className={message.error ? 'error' : 'success'}>{message.text}</p>}
      <ConfirmDialog
        open={question !== null}
        title={`Switch the study to ${status}?`}
        confirmLabel={`Switch to ${status}`}
        onConfirm={() => void change()}
        onCancel={() => {
          setQuestion(null);
          notChanged();
        }}
      >
        <p data-testid="status-question">{question}</p>
      </ConfirmDialog>
      <LockBeforeLiveDialog
        open={lockQuestion !== null}
        planProblems={lockQuestion?.problems ?? []}
        onChoose={(choice) => {
          setLockQuestion(null);
          void switchStatus(choice);
        }}
        onCancel={() => {
          setLockQuestion(null);
          notChanged();
        }}
      />
    </section>
  );
}
