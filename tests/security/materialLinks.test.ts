/**
 * A study material that is a symlink to a file outside studies/ is never served: refused at start-up
 * (lib/studyFiles/studyConfig.test.ts) and, should the file be swapped for such a link while the server runs,
 * refused when a participant asks for it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join, ROOT, startTestServer, type TestServer } from '../support/integrationHarness';

let t: TestServer;
let studiesDir: string;
const SECRET = `root:x:0:0:canary-${process.pid}\n`;
let outside: string;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-materials-'));
  studiesDir = path.join(dir, 'studies');
  fs.cpSync(path.join(ROOT, 'studies'), studiesDir, { recursive: true });
  outside = path.join(dir, 'passwd');
  fs.writeFileSync(outside, SECRET);
  t = await startTestServer({ studiesDir });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(path.dirname(studiesDir), { recursive: true, force: true });
});

describe('materials served to participants', () => {
  it('a material replaced by a link to a file outside studies/ after start-up is not served', async () => {
    const j = await join(t, 'visualization', { PROLIFIC_PID: 'material-link-1' });
    const auth = { headers: { authorization: `Bearer ${j.token}` } };
    const url = `${t.server.url}/api/session/materials/study_habits.csv`;
    const before = await fetch(url, auth);
    expect(before.status).toBe(200);
    expect(await before.text()).toMatch(/study_hours|exam/i);

    const material = path.join(studiesDir, 'materials', 'visualization', 'study_habits.csv');
    fs.rmSync(material);
    fs.symlinkSync(outside, material);
    const after = await fetch(url, auth);
    const body = await after.text();
    expect(after.status).toBe(404);
    expect(body).not.toContain('canary');
  });
});
