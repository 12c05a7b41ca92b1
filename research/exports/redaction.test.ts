import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRedactor, IdentityMatcher } from './redaction';

function redactOnce(text: string, identities: string[] = []) {
  const matcher = new IdentityMatcher();
  for (const id of identities) matcher.add(id);
  const r = createRedactor(matcher);
  return { text: r.redact(text), counts: r.counts };
}

describe('profile URLs are personal', () => {
  it.each([
    'https://www.linkedin.com/in/jane-doe-123/',
    'https://uk.linkedin.com/in/jane-doe',
    'linkedin.com/in/jane-doe',
    'www.facebook.com/jane.doe',
    'https://m.facebook.com/jane.doe',
    'https://twitter.com/janedoe',
    'https://x.com/janedoe',
    'https://www.instagram.com/janedoe/',
    'https://github.com/janedoe',
    'github.com/janedoe',
    'https://orcid.org/0000-0002-1825-0097',
    'https://www.researchgate.net/profile/Jane-Doe',
    'https://mastodon.social/@janedoe',
    'https://medium.com/@janedoe/my-post-1234',
    'https://www.youtube.com/@janedoe',
    'https://www.cs.example.edu/~jdoe/',
    'https://t.me/janedoe',
  ])('%s', (url) => {
    const { text, counts } = redactOnce(`see ${url}, thanks`);
    expect(text).toBe('see [REDACTED:url], thanks');
    expect(counts.url).toBe(1);
  });

  it.each([
    'https://github.com/pandas-dev/pandas',
    'https://www.npmjs.com/package/@types/node',
    'https://www.linkedin.com/company/example',
    'https://docs.python.org/3/library/csv.html',
    'netflix.com/browse',
  ])('a page that names no person stays: %s', (url) => {
    expect(redactOnce(`see ${url} now`).text).toBe(`see ${url} now`);
  });
});

describe('redaction', () => {
  it('redacts emails and counts them', () => {
    const { text, counts } = redactOnce('Write to jane.doe+study@uni-example.ac.uk or BOB@EXAMPLE.COM.');
    expect(text).toBe('Write to [REDACTED:email] or [REDACTED:email].');
    expect(counts.email).toBe(2);
  });

  it.each([
    '+44 20 7946 0958',
    '+1-555-123-4567',
    '(555) 123-4567',
    '555-123-4567',
    '555.123.4567',
    '555 123 4567',
    '07700 900123',
    '+49 (0)30 1234567',
    '+33612345678',
  ])('redacts phone number %s', (phone) => {
    const { text, counts } = redactOnce(`call me on ${phone} tomorrow`);
    expect(text).toBe('call me on [REDACTED:phone] tomorrow');
    expect(counts.phone).toBe(1);
  });

  it.each([
    'The meeting is on 2024-01-15 at 10:30.',
    'Revenue grew from 1000 to 2000 and 3.14159 is pi.',
    'Population 1400000000 in 2023',
    'values 100 200 300 and 1000 2000 3000',
    'version 1.2.3 released',
    'rows:\n100\n200\n300',
    'costs $12.50 per 3 items',
  ])('leaves ordinary numbers alone: %s', (sentence) => {
    const { text, counts } = redactOnce(sentence);
    expect(text).toBe(sentence);
    expect(counts.phone + counts.ip).toBe(0);
  });

  it('redacts IPv4 and IPv6 addresses but not version strings', () => {
    const { text, counts } = redactOnce('from 192.168.1.20 and 2001:db8::ff00:42:8329, fe80::1; v1.2.3.4.5 and 10:30:00');
    expect(text).toBe('from [REDACTED:ip] and [REDACTED:ip], [REDACTED:ip]; v1.2.3.4.5 and 10:30:00');
    expect(counts.ip).toBe(3);
  });

  it('redacts URLs carrying personal tokens, keeps ordinary links', () => {
    const input =
      'see https://app.prolific.com/submissions/complete?PROLIFIC_PID=5f3a9c&cc=1, ' +
      'https://x.org/page#token=abc and https://en.wikipedia.org/wiki/Collaboration?lang=en.';
    const { text, counts } = redactOnce(input);
    expect(text).toBe('see [REDACTED:url], [REDACTED:url] and https://en.wikipedia.org/wiki/Collaboration?lang=en.');
    expect(counts.url).toBe(2);
  });

  it.each(['token', 'session', 'id', 'key', 'email', 'workerId', 'user_id', 'SESSION_ID'])(
    'treats query parameter %s as personal',
    (param) => {
      expect(redactOnce(`https://example.com/a?${param}=zzz`).counts.url).toBe(1);
    },
  );

  it('redacts any identity-table string, case-insensitively, longest first', () => {
    const { text, counts } = redactOnce('my id is 5F3A9C0D1E2B and study STUDY-77; also 5f3a9c0d1e2b99', [
      '5f3a9c0d1e2b',
      '5f3a9c0d1e2b99',
      'STUDY-77',
      'ab', // too short to match safely
    ]);
    expect(text).toBe('my id is [REDACTED:identity] and study [REDACTED:identity]; also [REDACTED:identity]');
    expect(counts.identity).toBe(3);
  });

  it('matches among many identities that share a prefix, and in text whose lower case changes length', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `pid${i.toString(16).padStart(21, '0')}`);
    const { text, counts } = redactOnce(`a ${ids[4321]} b ${ids[7]!.toUpperCase()} c pid0000 d`, ids);
    expect(text).toBe('a [REDACTED:identity] b [REDACTED:identity] c pid0000 d');
    expect(counts.identity).toBe(2);
    const turkish = redactOnce(`İstanbul ${ids[99]}`, ids);
    expect(turkish.text).toBe('İstanbul [REDACTED:identity]');
  });

  it('walks JSON payloads, redacting strings only', () => {
    const r = createRedactor();
    const out = r.redactJson({ text: 'mail a@b.io', n: 5551234567, nested: [{ ip: '10.0.0.1' }], ok: true });
    expect(out).toEqual({ text: 'mail [REDACTED:email]', n: 5551234567, nested: [{ ip: '[REDACTED:ip]' }], ok: true });
    expect(r.counts).toMatchObject({ email: 1, ip: 1 });
  });

  it('never leaves a seeded email or identity behind (property)', () => {
    const word = fc.stringMatching(/^[a-z ]{0,20}$/);
    const local = fc.stringMatching(/^[a-z][a-z0-9.]{0,10}[a-z0-9]$/);
    const domain = fc.stringMatching(/^[a-z]{2,10}$/);
    const pid = fc.stringMatching(/^[0-9a-f]{24}$/);
    fc.assert(
      fc.property(word, local, domain, word, pid, (a, l, d, b, id) => {
        const email = `${l}@${d}.com`;
        const { text } = redactOnce(`${a} ${email} ${b} ${id.toUpperCase()} ${a}`, [id]);
        return !text.includes(email) && !text.toLowerCase().includes(id);
      }),
    );
  });
});
