/**
 * Identity leakage into the science files, end to end: a real server session (study link parameters,
 * chat with personal data, an upload whose file name names the person, telemetry), then a real export.
 * Plus redaction cases an attacker-minded reviewer would try first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOk, connectSocket, join, nextPush, startTestServer, toWorkspace, type TestServer } from '../support/integrationHarness';
import { exportStudy } from '../../research/exports/exportStudy';
import { createRedactor, IdentityMatcher } from '../../research/exports/redaction';
import { sanitizePayload } from '../../research/exports/eventPayload';
import { tinyPng } from '../support/png';

const PID = '64a1f3c2b9e8d7a6f5e4d3c2';
const PLATFORM_SESSION = 'prolific-session-7c1e2f';
const PERSONAL_FILE_NAME = 'Jane_Smith_passport_scan.png';
const EMAIL = 'jane.smith+study@example.co.uk';
const PHONE = '+44 7700 900123';
const IPV6 = '2001:db8:85a3::8a2e:370:7334';

let t: TestServer;
let out: string;

beforeAll(async () => {
  t = await startTestServer();
  const j = await join(t, 'visualization', { PROLIFIC_PID: PID, STUDY_ID: 'prolific-study-1', SESSION_ID: PLATFORM_SESSION, utm_source: 'newsletter' });
  const s = await connectSocket(t, j.token);
  await toWorkspace(s);
  const done = nextPush(s, 'chat:done');
  await callOk(s, 'chat:send', {
    clientId: 'privacy-msg-0001',
    text: `I am ${PID}, mail ${EMAIL}, call ${PHONE}, my box is ${IPV6}, my link https://app.prolific.com/studies?PROLIFIC_PID=${PID}`,
    clientTs: Date.now(),
  });
  await done;
  const up = await fetch(`${t.server.url}/api/session/upload?field=plot&name=${encodeURIComponent(PERSONAL_FILE_NAME)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${j.token}`, 'content-type': 'image/png' },
    body: new Uint8Array(tinyPng()),
  }).then((r) => r.json() as Promise<any>);
  await callOk(s, 'telemetry', { kind: 'paste', chars: 12, target: 'hypothesis', clientTs: Date.now() });
  await callOk(s, 'artifact:submit', {
    fields: { hypothesis: `contact ${EMAIL}`, code: 'print(1)', plot: up.data.uploadId, interpretation: `see ${PHONE}` },
    clientTs: Date.now(),
  });
  out = path.join(t.dataDir, 'export-out');
  await exportStudy({ store: t.server.store, dataDir: t.dataDir, studyId: 'visualization', outDir: out, includePilot: false, includeIdentities: false });
});
afterAll(async () => {
  await t?.close();
});

describe('an export of a real session', () => {
  it('holds no platform id, platform session id, e-mail, phone, IP or personal file name in any science file', () => {
    const files = fs.readdirSync(out).filter((f) => /\.(csv|jsonl|json|md)$/.test(f));
    expect(files).toContain('events.jsonl');
    expect(files).not.toContain('identities.csv');
    const all = files.map((f) => fs.readFileSync(path.join(out, f), 'utf8')).join('\n');
    for (const value of [PID, PLATFORM_SESSION, 'prolific-study-1', EMAIL, 'jane.smith', '7700 900123', IPV6, 'Jane_Smith', 'passport']) {
      expect(all, value).not.toContain(value);
    }
    // The upload is still in the dataset, under a neutral name.
    const artifactFiles = fs.readdirSync(path.join(out, 'artifacts'), { recursive: true }).map(String);
    expect(artifactFiles.some((f) => f.endsWith('.png'))).toBe(true);
    expect(artifactFiles.join(' ')).not.toContain('Jane');
  });

  it('events.jsonl payloads carry no study-link parameters', () => {
    const events = fs.readFileSync(path.join(out, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; payload: unknown });
    const created = events.find((e) => e.type === 'session.created')!;
    expect(JSON.stringify(created.payload)).not.toMatch(/PROLIFIC|utm_source|newsletter/);
    const upload = events.find((e) => e.type === 'upload.stored');
    expect(upload).toBeDefined();
    expect(JSON.stringify(upload!.payload)).not.toContain('Jane');
  });
});

describe('redaction cases', () => {
  const redact = (text: string, ids: string[] = []) => {
    const m = new IdentityMatcher();
    for (const id of ids) m.add(id);
    return createRedactor(m).redact(text);
  };

  it.each([
    ['email with a plus tag', 'write to jane.doe+tandem@mail.example.org please', 'jane.doe'],
    ['upper-case email', 'JANE@EXAMPLE.COM', 'JANE@'],
    ['full IPv6', 'from 2001:0db8:85a3:0000:0000:8a2e:0370:7334 today', '8a2e:0370'],
    ['compressed IPv6', 'from 2001:db8::ff00:42:8329.', 'ff00:42'],
    ['IPv6 with zone', 'fe80::1ff:fe23:4567:890a%eth0', 'fe23:4567'],
    ['IPv4-mapped IPv6', '::ffff:203.0.113.9', '203.0.113.9'],
    ['IPv4 with port', '198.51.100.23:8080', '198.51.100.23'],
    ['UK mobile', 'ring 07700 900123', '900123'],
    ['international with dashes', '+1-202-555-0143', '555-0143'],
    ['US with parentheses', '(202) 555-0143', '555-0143'],
    ['dotted US', '202.555.0143', '555.0143'],
    ['German with trunk zero', '+49 (0)30 12345678', '12345678'],
    ['French spaced', '+33 6 12 34 56 78', '12 34 56'],
    ['tel: link', 'tel:+12025550143', '2025550143'],
    ['URL with token', 'https://example.org/reset?token=abc123secret', 'abc123secret'],
    ['URL with token in the fragment', 'https://example.org/cb#access_token=abc123secret', 'abc123secret'],
    ['URL with credentials', 'https://jane:hunter2@example.org/', 'hunter2'],
    ['URL without a scheme carrying a token', 'go to example.org/reset?token=abc123secret now', 'abc123secret'],
    ['HTML-escaped URL query carrying a token', 'https://example.org/a?x=1&amp;token=abc123secret', 'abc123secret'],
    ['ftp URL with a token', 'ftp://files.example.org/x?token=abc123secret', 'abc123secret'],
    ['platform id in other case', `ID ${PID.toUpperCase()} here`, PID.toUpperCase()],
  ])('%s', (_label, text, secret) => {
    const result = redact(text, [PID]);
    expect(result).not.toContain(secret);
    expect(result).toMatch(/\[REDACTED:(email|ip|phone|url|identity)\]/);
  });

  // Not a timing test: a quadratic pattern needs tens of minutes on a million characters, a linear one
  // a fraction of a second; the 30 s timeout only separates the two (the export runs inside the server).
  it('stays linear on adversarial text (no catastrophic backtracking)', { timeout: 30_000 }, () => {
    for (const unit of ['a', 'a.', 'x-', '1 ', 'a@', '::', '1.', 'ab.cd/']) {
      const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
      expect(redact(text).length).toBeGreaterThan(0);
    }
  });

  it('text whose lower case changes length (Turkish "İ") takes no per-identity slow path', { timeout: 30_000 }, () => {
    const matcher = new IdentityMatcher();
    const ids = Array.from({ length: 100_000 }, (_, i) => `pid-${i.toString(16).padStart(8, '0')}-x`);
    for (const id of ids) matcher.add(id);
    const r = createRedactor(matcher);
    // A slow path rescanning every identity costs ~1 s per message here: 100 messages would take minutes.
    for (let i = 0; i < 100; i++) {
      expect(r.redact(`İstanbul'da ${ids[i * 997]!.toUpperCase()} İzmir`)).toBe("İstanbul'da [REDACTED:identity] İzmir");
    }
  });

  it('leaves ordinary study text alone', () => {
    for (const text of ['Python 3.11.4 and numpy 1.26.0', 'exam_score ~ study_hours, r = 0.62, p < 0.001', 'Day 2: 10:30–12:00 Belém', 'see https://example.org/docs?page=2']) {
      expect(redact(text)).toBe(text);
    }
  });
});

describe('stored JSON with a "__proto__" key', () => {
  it('is redacted as data: the key is kept as an own property and no prototype changes', () => {
    const stored = JSON.parse('{"note":"x","__proto__":{"email":"jane@example.org","text":"mail jane@example.org"}}');
    const r = createRedactor();
    const viaRedactor = r.redactJson(stored) as Record<string, unknown>;
    const viaPayload = sanitizePayload(stored, { sessionId: 's-1', pseudonym: 'p1', redactor: createRedactor(), uploadPaths: new Map() }) as Record<string, unknown>;
    for (const out of [viaRedactor, viaPayload]) {
      expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
      expect(Object.keys(out)).toEqual(['note', '__proto__']);
      expect(JSON.stringify(out)).not.toContain('jane@example.org');
      expect(JSON.stringify(out)).toContain('__proto__');
    }
  });
});
