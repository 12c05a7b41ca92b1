/**
 * Which URLs found in participant text are personal (redacted as [REDACTED:url] by redaction.ts): a URL
 * carrying a personal parameter or credentials, or a person's profile page.
 */

/** Query/fragment parameter names that carry a person or a credential (case-insensitive). */
const PERSONAL_PARAM =
  /^(prolific_?pid|study_?id|session_?id|participant(_?id)?|worker_?id|assignment_?id|hit_?id|pid|uid|user(_?id|name)?|e-?mail|mail|token|access_?token|auth\w*|api_?key|key|secret|sig(nature)?|code|password|pwd|pass|phone|tel|id|\w*token|\w*session\w*|\w*email\w*|\w*_id|\w*Id)$/i;

/**
 * Sites whose pages name a person, with the paths that are a person's page. A path pattern that is too
 * wide costs a link in the text; too narrow leaks a participant's profile. Repository pages
 * (github.com/<owner>/<repo>) are not profiles: a coding study's links to libraries stay readable.
 */
const ANY_FIRST_SEGMENT = /^\/[^/]+/;
const PROFILE_PATHS: Record<string, RegExp> = {
  'linkedin.com': /^\/(in|pub)\/[^/]+/i,
  'facebook.com': ANY_FIRST_SEGMENT,
  'fb.com': ANY_FIRST_SEGMENT,
  'instagram.com': ANY_FIRST_SEGMENT,
  'twitter.com': ANY_FIRST_SEGMENT,
  'x.com': ANY_FIRST_SEGMENT,
  'threads.net': ANY_FIRST_SEGMENT,
  'tiktok.com': ANY_FIRST_SEGMENT,
  'vk.com': ANY_FIRST_SEGMENT,
  't.me': ANY_FIRST_SEGMENT,
  'wa.me': ANY_FIRST_SEGMENT,
  'about.me': ANY_FIRST_SEGMENT,
  'keybase.io': ANY_FIRST_SEGMENT,
  'github.com': /^\/[^/]+\/?$/,
  'gitlab.com': /^\/[^/]+\/?$/,
  'orcid.org': /^\/\d{4}-\d{4}-\d{4}-\d{3}[\dX]/i,
  'researchgate.net': /^\/profile\//i,
  'xing.com': /^\/profile\//i,
  'reddit.com': /^\/(u|user)\//i,
  'youtube.com': /^\/(c|user|channel)\//i,
};
/** The same sites written without scheme or www ("linkedin.com/in/jane"): looked at only with a path. */
export const BARE_PROFILE_RE = new RegExp(
  `(?<![\\w@./:-])(?:[a-z0-9-]+\\.)*(?:${Object.keys(PROFILE_PATHS).map((h) => h.replace(/\./g, '\\.')).join('|')})/[^\\s<>"'\`]+`,
  'gi',
);

function parseUrl(trimmed: string): URL | null {
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`);
  } catch {
    return null;
  }
}

/** A person's page: a known profile site's profile path, or a first path segment "@user" / "~user" on any host. */
function isProfileUrl(url: URL): boolean {
  const path = decodeURIComponentSafe(url.pathname);
  if (/^\/[@~][^/]/.test(path)) return true; // Mastodon, Medium, YouTube, TikTok handles; university home pages
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  for (const [site, profilePath] of Object.entries(PROFILE_PATHS)) {
    if ((host === site || host.endsWith(`.${site}`)) && profilePath.test(path)) return true;
  }
  return false;
}

function decodeURIComponentSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Whether a URL found in text is personal: a personal parameter, credentials, or a profile page. */
export function urlIsPersonal(raw: string): boolean {
  // Trailing punctuation belongs to the sentence; "&amp;" is an HTML-escaped "&" (copied from a page's source).
  const trimmed = raw.replace(/[.,;:!?)\]]+$/, '').replace(/&amp;/gi, '&');
  const url = parseUrl(trimmed);
  if (!url) return /[?&#](\w+)=/.test(trimmed); // unparsable but has parameters: be safe
  const names = [...url.searchParams.keys()];
  const hash = url.hash.replace(/^#/, '');
  if (hash.includes('=')) names.push(...new URLSearchParams(hash).keys());
  if (names.some((n) => PERSONAL_PARAM.test(n))) return true;
  if (url.username || url.password) return true;
  return isProfileUrl(url);
}
