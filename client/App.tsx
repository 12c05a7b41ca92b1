import { lazy, Suspense, useEffect, useState, type ComponentType } from 'react';
import { parseRoute, type Route } from './router';

const ParticipantApp = lazy(() => import('./participant/ParticipantApp'));

/**
 * The admin tree lives in client/admin/ (owned separately). It plugs in by providing
 * client/admin/AdminApp.tsx with a default-exported component taking `{ subPath }`.
 * import.meta.glob keeps this build working before that file exists.
 */
const adminEntry = import.meta.glob<{ default: ComponentType<{ subPath: string }> }>('./admin/AdminApp.tsx');
const adminLoader = Object.values(adminEntry)[0];
const AdminApp = adminLoader ? lazy(adminLoader) : null;

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const onPop = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  return route;
}

export function App() {
  const route = useRoute();
  return (
    <Suspense fallback={<p className="page-status" role="status">Loading…</p>}>
      {route.tree === 'participant' && <ParticipantApp studyId={route.studyId} />}
      {route.tree === 'admin' &&
        (AdminApp ? <AdminApp subPath={route.subPath} /> : <Notice title="Admin">The admin interface is not installed in this build.</Notice>)}
      {route.tree === 'home' && (
        <Notice title="Tandem">Open the study link you were given (it looks like /study/&lt;id&gt;).</Notice>
      )}
      {route.tree === 'not-found' && <Notice title="Page not found">There is nothing at this address.</Notice>}
    </Suspense>
  );
}

function Notice({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="page narrow">
      <h1>{title}</h1>
      <p>{children}</p>
    </main>
  );
}
