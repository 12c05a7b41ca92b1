/**
 * The participant's session token, kept in localStorage per study so a reload (or reopening the
 * tab) resumes the same session. It is stored with a fingerprint of the link's parameters: a link
 * with different platform ids (another person on a shared computer) joins afresh instead of taking
 * over the stored session. Storage can be unavailable (private mode): the session then lasts until
 * the tab closes; reopening the link resumes it only with the same per-visit id (SESSION_ID) or the
 * resume code. The session's resume code is kept beside the token, to show it in the header.
 */
const key = (studyId: string) => `tandem:session:${studyId}`;

export function paramsFingerprint(params: Record<string, string>): string {
  return JSON.stringify(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

export function loadToken(studyId: string, params: Record<string, string>): string | null {
  try {
    const raw = window.localStorage.getItem(key(studyId));
    if (!raw) return null;
    const stored = JSON.parse(raw) as { token?: unknown; params?: unknown };
    if (typeof stored.token !== 'string') return null;
    const linkHasIds = Object.keys(params).length > 0;
    if (linkHasIds && stored.params !== paramsFingerprint(params)) return null;
    return stored.token;
  } catch {
    return null;
  }
}

/** The resume code stored with the session's token (null when none is known). */
export function loadResumeCode(studyId: string): string | null {
  try {
    const raw = window.localStorage.getItem(key(studyId));
    const code = raw ? (JSON.parse(raw) as { resumeCode?: unknown }).resumeCode : null;
    return typeof code === 'string' ? code : null;
  } catch {
    return null;
  }
}

/**
 * Saves the token; `resumeCode` null keeps the code stored before for the same link (the server may not
 * know it), never one stored for another link (another person on a shared computer).
 */
export function saveToken(studyId: string, token: string, params: Record<string, string>, resumeCode: string | null = null): void {
  try {
    const raw = window.localStorage.getItem(key(studyId));
    const before = raw ? (JSON.parse(raw) as { params?: unknown; resumeCode?: unknown }) : {};
    const kept = before.params === paramsFingerprint(params) && typeof before.resumeCode === 'string' ? before.resumeCode : null;
    const code = resumeCode ?? kept;
    window.localStorage.setItem(key(studyId), JSON.stringify({ token, params: paramsFingerprint(params), resumeCode: code }));
  } catch {
    /* storage unavailable: see above */
  }
}

export function forgetToken(studyId: string): void {
  try {
    window.localStorage.removeItem(key(studyId));
  } catch {
    /* storage unavailable */
  }
}
