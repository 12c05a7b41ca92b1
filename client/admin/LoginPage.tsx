import { useState, type FormEvent } from 'react';
import { apiPost } from './api';

export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await apiPost('/api/admin/login', { password });
      onLoggedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="page narrow">
      <div className="card">
        <h1>Researcher login</h1>
        <form onSubmit={submit}>
          <div className="field">
            <label htmlFor="admin-password">Password</label>
            <input id="admin-password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </div>
          {error && <p className="error-box" role="alert">{error}</p>}
          <div className="actions">
            <button type="submit" disabled={busy || password.length === 0}>Log in</button>
          </div>
        </form>
      </div>
    </main>
  );
}
