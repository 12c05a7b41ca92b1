/**
 * The redactor for one study's text: every identity string of the study's participants (platform ids and
 * id-like URL parameter values) plus the pattern kinds of redaction.ts, and per session that session's own
 * URL parameter values whatever their shape (a referral link's `ref=CarolJones`). The exporter uses it for
 * the dataset, and the judge and annotator use it for the prompts they send to a model in study mode, so
 * personal data never reaches a model and a prompt built from the database equals the one built from
 * the exported dataset.
 */
import type { ExportIdentity, Store } from '../../lib/storage';
import { createRedactor, IdentityMatcher, type Redactor } from './redaction';

/** A string shaped like an id (6 characters or more with a digit): unlikely to be an ordinary word. */
const idShaped = (s: string) => s.length >= 6 && /\d/.test(s);

/**
 * Values that identify a participant in any session's text: platform ids, URL parameter values that look
 * like ids (someone may type another participant's id; a word-like value is matched in its own session only),
 * and URL parameter names that look like ids (a link may carry the id as a name: `?5f0c9e2b7a=1`).
 */
export function identityStrings(identity: ExportIdentity): string[] {
  const out = [identity.platformUserId, identity.platformStudyId, identity.platformSessionId].filter((v): v is string => !!v);
  for (const [key, value] of Object.entries(identity.urlParams)) {
    if (/pid|id$|token|session|email|key|label|worker|assignment/i.test(key) || idShaped(value)) out.push(value);
    if (idShaped(key)) out.push(key);
  }
  return out;
}

/**
 * Strings redacted from the session's own text: every URL parameter value (like every identity string, it may
 * name the person: `ref=CarolJones`) and every parameter name (a link made for one person may carry the
 * person in the name: `?CarolJones=1`), whatever their shape. Kept per session so that a participant who adds
 * `?x=python` to their link blanks "python" in their own text only, not in the whole study.
 */
export function sessionIdentityStrings(identity: ExportIdentity | undefined): string[] {
  return identity ? Object.entries(identity.urlParams).flat() : [];
}

/** A matcher over the identity strings of the given identities. */
export async function identityMatcher(identities: Iterable<ExportIdentity> | AsyncIterable<ExportIdentity>): Promise<IdentityMatcher> {
  const matcher = new IdentityMatcher();
  for await (const identity of identities) for (const s of identityStrings(identity)) matcher.add(s);
  return matcher;
}

/** A matcher over one session's own identity strings. */
export function sessionIdentityMatcher(identity: ExportIdentity | undefined): IdentityMatcher {
  const matcher = new IdentityMatcher();
  for (const s of sessionIdentityStrings(identity)) matcher.add(s);
  return matcher;
}

export interface StudyRedactor extends Redactor {
  /** The redactor for one session's text (study-wide identities plus the session's own). */
  forSessionId(sessionId: string): Redactor;
}

/** Reads the study's identities from the store and returns a redactor for its text. */
export async function openStudyRedactor(store: Store, studyId: string): Promise<StudyRedactor> {
  const snapshot = await store.openExportSnapshot();
  try {
    // One pass: the study-wide matcher, and per session only its own strings (not whole identity rows).
    const studyWide = new IdentityMatcher();
    const own = new Map<string, string[]>();
    for await (const identity of snapshot.identities(studyId)) {
      for (const v of identityStrings(identity)) studyWide.add(v);
      own.set(identity.sessionId, sessionIdentityStrings(identity));
    }
    const redactor = createRedactor(studyWide);
    const forSessionId = (sessionId: string) => {
      const matcher = new IdentityMatcher();
      for (const v of own.get(sessionId) ?? []) matcher.add(v);
      return redactor.forSession(matcher);
    };
    return Object.assign(redactor, { forSessionId });
  } finally {
    await snapshot.close();
  }
}
