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

  it("replaces a participant's own upload file name with the neutral dataset name, or redacts it", () => {
    const redactor = createRedactor(new IdentityMatcher());
    const ctx = { sessionId: 'sess-9', pseudonym: 'p9', redactor, uploadPaths: new Map([['upload-7', 'artifacts/p9/1-plot.png']]) };
    expect(sanitizePayload({ uploadId: 'upload-7', fieldId: 'plot', fileName: 'jane-doe-thesis-plot.png', contentType: 'image/png' }, ctx)).toEqual({
      uploadId: 'artifacts/p9/1-plot.png',
      fieldId: 'plot',
      fileName: '1-plot.png',
      contentType: 'image/png',
    });
    expect(sanitizePayload({ file_name: 'jane-doe.png' }, ctx)).toEqual({ file_name: '[REDACTED:identity]' });
    expect(redactor.counts.identity).toBe(1);
  });
  it('keeps the provider URL of a reply readable (not IP-redacted) but strips credentials from it', () => {
    const redactor = createRedactor(new IdentityMatcher());
    const ctx = { sessionId: 'sess-1', pseudonym: 'p1', redactor, uploadPaths: new Map<string, string>() };
    const out = sanitizePayload(
      {
        replyId: 'r1',
        provider: 'openai-compatible',
        providerUrl: 'http://127.0.0.1:41234/v1',
        nested: { provider_url: 'https://user:pw@10.1.2.3:8443/openai/v1?api-key=sk-live-123#x' },
        note: 'served by http://127.0.0.1:41234/v1',
        missing: { providerUrl: null },
      },
      ctx,
    );
    expect(out).toEqual({
      replyId: 'r1',
      provider: 'openai-compatible',
      providerUrl: 'http://127.0.0.1:41234/v1',
      nested: { provider_url: 'https://10.1.2.3:8443/openai/v1' },
      // Only the provider URL key is exempt: the same address in free text is still redacted.
      note: expect.not.stringContaining('127.0.0.1'),
      missing: { providerUrl: null },
    });
    expect(JSON.stringify(out)).not.toContain('sk-live-123');
  });
});
