import { describe, expect, it } from 'vitest';
import { sanitizePayload } from './eventPayload';
import { createRedactor, IdentityMatcher } from './redaction';

describe('sanitizePayload', () => {
  const matcher = new IdentityMatcher();
  matcher.add('PID-0000-1111');

  it('drops identity keys, pseudonymises the session id, maps uploads and redacts strings', () => {
    const redactor = createRedactor(matcher);
    const out = sanitizePayload(
      {
        sessionId: 'sess-123',
        note: 'in sess-123 by PID-0000-1111, mail x@y.org',
        urlParams: { PROLIFIC_PID: 'PID-0000-1111' },
        params: { PROLIFIC_PID: 'abc', STUDY_ID: 'def' },
        token: 'secret-token',
        model: { params: { temperature: 0.7, max_tokens: 256 } },
        fields: { figure: 'upload-1', text: 'hello' },
        list: ['sess-123', 5, null, true],
      },
      { sessionId: 'sess-123', pseudonym: 'p0123', redactor, uploadPaths: new Map([['upload-1', 'artifacts/p0123/1-figure.png']]) },
    );
    expect(out).toEqual({
      sessionId: 'p0123',
      note: 'in p0123 by [REDACTED:identity], mail [REDACTED:email]',
      urlParams: '[REDACTED:identity]',
      params: '[REDACTED:identity]',
      token: '[REDACTED:identity]',
      model: { params: { temperature: 0.7, max_tokens: 256 } },
      fields: { figure: 'artifacts/p0123/1-figure.png', text: 'hello' },
      list: ['p0123', 5, null, true],
    });
    expect(redactor.counts).toMatchObject({ identity: 4, email: 1 });
  });
});
