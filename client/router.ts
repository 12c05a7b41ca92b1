/**
 * The client's only routing: a path decides which tree (participant or admin) is loaded.
 * Each tree does its own sub-routing; this stays deliberately tiny.
 */
export type Route =
  | { tree: 'participant'; studyId: string }
  | { tree: 'admin'; subPath: string }
  | { tree: 'home' }
  | { tree: 'not-found'; path: string };

const STUDY_PATH = /^\/study\/([A-Za-z0-9_-]{1,100})\/?$/;
const ADMIN_PATH = /^\/admin(\/.*)?$/;

export function parseRoute(pathname: string): Route {
  const study = STUDY_PATH.exec(pathname);
  if (study?.[1]) return { tree: 'participant', studyId: study[1] };
  const admin = ADMIN_PATH.exec(pathname);
  if (admin) return { tree: 'admin', subPath: admin[1] ?? '/' };
  if (pathname === '/' || pathname === '') return { tree: 'home' };
  return { tree: 'not-found', path: pathname };
}

/** Client-side navigation for trees that need it (the admin side); fires a popstate so App re-routes. */
export function navigate(path: string): void {
  window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}
