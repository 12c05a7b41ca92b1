import { useCallback, useEffect, useState } from 'react';
import { navigate } from '../router';
import { AdminApiError, apiGet } from './api';
import { LoginPage } from './LoginPage';
import { StudiesPage } from './StudiesPage';
import { StudyPage } from './StudyPage';
import { SessionPage } from './SessionPage';
import './admin.css';

type AuthState = 'checking' | 'in' | 'out';

/** The researcher dashboard under /admin: login, studies, a study (monitor, export, withdrawal), a session. */
export default function AdminApp({ subPath }: { subPath: string }) {
  const [auth, setAuth] = useState<AuthState>('checking');

  const check = useCallback(() => {
    apiGet('/api/admin/me')
      .then(() => setAuth('in'))
      .catch((e: unknown) => setAuth(e instanceof AdminApiError && e.status === 401 ? 'out' : 'out'));
  }, []);
  useEffect(check, [check]);

  if (auth === 'checking') return <p className="page-status" role="status">Loading…</p>;
  if (auth === 'out') return <LoginPage onLoggedIn={() => setAuth('in')} />;

  const study = /^\/studies\/([a-z0-9_-]+)\/?$/.exec(subPath);
  const session = /^\/sessions\/([A-Za-z0-9_-]+)\/?$/.exec(subPath);
  return (
    <div className="admin">
      <header className="topbar admin-topbar">
        <a href="/admin" onClick={(e) => { e.preventDefault(); navigate('/admin'); }}>Tandem · researcher dashboard</a>
      </header>
      <main className="page">
        {study?.[1] ? <StudyPage studyId={study[1]} onLoggedOut={() => setAuth('out')} />
          : session?.[1] ? <SessionPage sessionId={session[1]} />
          : <StudiesPage onLoggedOut={() => setAuth('out')} />}
      </main>
    </div>
  );
}
