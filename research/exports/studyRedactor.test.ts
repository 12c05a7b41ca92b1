/**
 * URL parameter names are redacted like their values: a link made for one person may carry the person in a
 * parameter's name (`?CarolJones=1`) or an id as a name (`?5f0c9e2b7a1d=1`), and either may be typed into the
 * session's text.
 */
import { describe, expect, it } from 'vitest';
import type { ExportIdentity } from '../../lib/storage';
import { createRedactor } from './redaction';
import { identityMatcher, sessionIdentityMatcher } from './studyRedactor';

const identity = (urlParams: Record<string, string>): ExportIdentity => ({
  platform: 'generic',
  platformUserId: null,
  platformStudyId: null,
  platformSessionId: null,
  urlParams,
  createdAt: 0,
});

describe('URL parameter names in redaction', () => {
  it("redacts a parameter's name in its own session's text, as its value", () => {
    const own = identity({ CarolJones: '1', ref: 'DaveSmith' });
    const redactor = createRedactor().forSession(sessionIdentityMatcher(own));
    expect(redactor.redact('I am CarolJones, a friend of DaveSmith')).toBe('I am [REDACTED:identity], a friend of [REDACTED:identity]');
    expect(redactor.counts.identity).toBe(2);
  });

  it('redacts an id-shaped parameter name in every session of the study, a word-like one only in its own', async () => {
    const other = identity({ '5f0c9e2b7a1d': '1', CarolJones: '1' });
    const redactor = createRedactor(await identityMatcher([other]));
    expect(redactor.redact('the other one was 5F0C9E2B7A1D')).toBe('the other one was [REDACTED:identity]');
    expect(redactor.redact('CarolJones wrote this')).toBe('CarolJones wrote this');
  });
});
