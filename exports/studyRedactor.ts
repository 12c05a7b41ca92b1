/**
 * The redactor for one study's text: every identity string of the study's participants (platform ids and
 * id-like URL parameter values) plus the pattern kinds of redaction.ts. The exporter uses it for the
 * dataset, and the judge and annotator use it for the prompts they send to a model in study mode, so
 * personal data never reaches a model and a prompt built from the database equals the one built from
 * the exported dataset.
 */
import type { ExportIdentity, Store } from '../server/db/store';
import { createRedactor, IdentityMatcher, type Redactor } from './redaction';

/** Values that identify a participant in text: platform ids, and URL parameter values that look like ids. */
export function identityStrings(identity: ExportIdentity): string[] {
  const out = [identity.platformUserId, identity.platformStudyId, identity.platformSessionId].filter((v): v is string => !!v);
  for (const [key, value] of Object.entries(identity.urlParams)) {
    if (/pid|id$|token|session|email|key|label|worker|assignment/i.test(key) || (value.length >= 6 && /\d/.test(value))) out.push(value);
  }
  return out;
}

/** A matcher over the identity strings of the given identities. */
export async function identityMatcher(identities: Iterable<ExportIdentity> | AsyncIterable<ExportIdentity>): Promise<IdentityMatcher> {
  const matcher = new IdentityMatcher();
  for await (const identity of identities) for (const s of identityStrings(identity)) matcher.add(s);
  return matcher;
}

/** Reads the study's identities from the store and returns a redactor for its text. */
export async function openStudyRedactor(store: Store, studyId: string): Promise<Redactor> {
  const snapshot = await store.openExportSnapshot();
  try {
    return createRedactor(await identityMatcher(snapshot.identities(studyId)));
  } finally {
    await snapshot.close();
  }
}
