import { useEffect, useState, type FormEvent } from 'react';
import { adminApi } from './api';
import { pageTitle } from './AdminLink';

export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = pageTitle('Log in');
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await adminApi.login({ password });
      onLoggedIn();
    } catch (err) {
      setError(loginMessage((err as Error).message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="page narrow admin-login">
      <div className="card">
        <p className="admin-kicker">Tandem</p>
        <h1>Researcher login</h1>
        <p className="hint">
          For the study team only. The password is the server&apos;s <code>ADMIN_PASSWORD</code> (or the one printed once at its first start).
        </p>
        <form onSubmit={submit}>
          <div className="field">
            <label htmlFor="admin-password">Password</label>
            <input
              id="admin-password"
              type="password"
              autoComplete="current-password"
              autoFocus
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'login-error' : undefined}
              required
            />
          </div>
          {error && <p className="error-box" role="alert" id="login-error">{error}</p>}
          <div className="actions">
            <button type="submit" disabled={busy || password.length === 0}>{busy ? 'Logging in…' : 'Log in'}</button>
          </div>
        </form>
      </div>
    </main>
  );
}

/** The server's terse refusal, as a sentence that says what to do. */
export function loginMessage(message: string): string {
  if (message === 'wrong password')
    return 'Wrong password: check it and try again. It was printed once when the server first started, unless ADMIN_PASSWORD sets it.';
  const t = message.trim();
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.');
}
