import { useCallback, useEffect, useState } from 'react';
import { AdminApiError, adminApi } from './api';
import { LoginPage } from './LoginPage';
import { StudiesPage } from './StudiesPage';
import { StudyPage } from './StudyPage';
import { SessionPage } from './SessionPage';
import { SessionsPage } from './SessionsPage';
import { WizardConsole } from './wizard/WizardConsole';
import { wizardApi } from './wizard/wizardApi';
import { AdminLink, focusNextHeading } from './AdminLink';
import './admin.css';

type AuthState = 'checking' | 'in' | 'out' | 'unreachable';

/** The researcher dashboard under /admin: login, studies, a study (monitor, export, withdrawal), a session. */
export default function AdminApp({ subPath }: { subPath: string }) {
  const [auth, setAuth] = useState<AuthState>('checking');

  const check = useCallback(() => {
    adminApi.me().then(
      () => setAuth('in'),
      (e: unknown) => setAuth(e instanceof AdminApiError && e.status === 401 ? 'out' : 'unreachable'),
    );
  }, []);
  useEffect(check, [check]);

  // A new page: its heading takes focus once it has loaded (not on the first load: the browser starts at the top).
  const [firstPath] = useState(subPath);
  useEffect(() => {
    if (subPath === firstPath) return;
    focusNextHeading();
    window.scrollTo(0, 0);
  }, [subPath, firstPath]);

  const study = /^\/studies\/([a-z0-9_-]+)\/?$/.exec(subPath);
  const session = /^\/sessions\/([A-Za-z0-9_-]+)\/?$/.exec(subPath);
  const sessions = /^\/studies\/([a-z0-9_-]+)\/sessions\/?$/.exec(subPath);
  const wizard = /^\/studies\/([a-z0-9_-]+)\/wizard\/?$/.exec(subPath);
  const studyOfPage = study?.[1] ?? sessions?.[1] ?? wizard?.[1];
  const home = subPath === '/' || subPath === '';
  // The wizard console is linked only from studies with a review or wizard condition.
  const [usesWizard, setUsesWizard] = useState<string | null>(null);
  useEffect(() => {
    if (!studyOfPage || auth !== 'in') return;
    let current = true;
    wizardApi.uses(studyOfPage).then((r) => current && setUsesWizard(r.uses ? studyOfPage : null), () => undefined);
    return () => {
      current = false;
    };
  }, [studyOfPage, auth]);
  const logout = async () => {
    await adminApi.logout().catch(() => undefined);
    setAuth('out');
  };

  if (auth === 'checking') return <p className="page-status" role="status">Loading…</p>;
  if (auth === 'unreachable')
    return (
      <main className="page narrow">
        <h1>Researcher dashboard</h1>
        <p className="error-box" role="alert">The server cannot be reached right now.</p>
        <button type="button" onClick={check}>Try again</button>
      </main>
    );
  if (auth === 'out') return <LoginPage onLoggedIn={() => setAuth('in')} />;

  return (
    <div className="admin">
      <header className="topbar admin-topbar">
        <AdminLink to="/admin" className="admin-brand">Tandem <span>researcher dashboard</span></AdminLink>
        <nav aria-label="Dashboard" className="admin-nav">
          <AdminLink to="/admin" {...(home ? { 'aria-current': 'page' as const } : {})}>Studies</AdminLink>
          {studyOfPage && (wizard || usesWizard === studyOfPage) && (
            <AdminLink to={`/admin/studies/${studyOfPage}/wizard`} {...(wizard ? { 'aria-current': 'page' as const } : {})}>Wizard console</AdminLink>
          )}
          <button type="button" className="secondary" onClick={() => void logout()}>Log out</button>
        </nav>
      </header>
      <main className="page">
        {study?.[1] ? <StudyPage studyId={study[1]} />
          : sessions?.[1] ? <SessionsPage studyId={sessions[1]} />
          : wizard?.[1] ? <WizardConsole studyId={wizard[1]} />
          : session?.[1] ? <SessionPage sessionId={session[1]} />
          : home ? <StudiesPage />
          : <NotFound />}
      </main>
    </div>
  );
}

function NotFound() {
  useEffect(() => {
    document.title = 'Not found · Tandem';
  }, []);
  return (
    <>
      <h1>Page not found</h1>
      <p>There is no dashboard page at this address. <AdminLink to="/admin">Go to the studies.</AdminLink></p>
    </>
  );
}


