/**
 * The export read by the tools researchers use. A real server collects a small study (two completed
 * sessions with chat, one declined, one still working), the judge and annotate CLIs run on it
 * (offline), and the export CLI writes the dataset. Then:
 *  - Frictionless: `datapackage` (Frictionless JS 1.1) loads datapackage.json as valid and reads every
 *    resource: the CSV files as typed tables (datetimes as the exact instants written, integers,
 *    booleans, empties as null), the JSONL files row by row through their Table Schema.
 *  - pandas (python3-pandas): read_csv / read_json with the codebook's types give the right dtypes,
 *    missing values and row counts. Skipped, with the reason, when no python3 with pandas is found.
 *  - R: read.csv with colClasses from the codebook's types, the same checks for the CSV files.
 *    Skipped, with the reason, without Rscript and jsonlite (r-base-core, r-cran-jsonlite).
 * The process runs in a non-UTC time zone, so a reader that took the Z of a datetime for local time fails.
 */
process.env.TZ = 'Asia/Kolkata';

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { Package } from 'datapackage';
import pino from 'pino';
import { Schema } from 'tableschema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer } from '../../server/app';
import { startTandem } from '../../wiring/startTandem';
import { callOk, nextPush, type ParticipantClient } from '../support/integrationHarness';
import { seedLockedPlanWithDeviation } from '../support/preregistrationFixture';
import { io as connect } from 'socket.io-client';
import { nodeArgsFor } from '../support/testEntries';

const ROOT = path.resolve(import.meta.dirname, '../..');
const cli = (file: string, ...args: string[]) => [...nodeArgsFor(path.join(ROOT, file)), ...args];
const STUDY = 'travel-planning';
const run = promisify(execFile);

let dataDir: string;
let exportDir: string;
let server: RunningServer | undefined;

interface Field {
  name: string;
  type: string;
  format?: string;
}
interface ResourceDescriptor {
  name: string;
  path: string;
  format: 'csv' | 'jsonl';
  schema: { fields: Field[] };
}

const descriptor = () => JSON.parse(readFileSync(path.join(exportDir, 'datapackage.json'), 'utf8')) as { resources: ResourceDescriptor[] };
const csvRows = (file: string) => parse(readFileSync(path.join(exportDir, file), 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
const jsonlRows = (file: string) =>
  readFileSync(path.join(exportDir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
/** The rows of a resource as the export wrote them, with "missing" meaning an empty CSV cell or a JSON null/absent key. */
/** The group files of a study without a group condition: present and empty (checked as such above). */
const GROUP_FILES = ['groups.csv', 'group_events.jsonl', 'group_judgements.csv'];

function rawRows(r: ResourceDescriptor): { rows: Record<string, unknown>[]; missing: (row: Record<string, unknown>, name: string) => boolean } {
  return r.format === 'csv'
    ? { rows: csvRows(r.path), missing: (row, name) => row[name] === '' }
    : { rows: jsonlRows(r.path), missing: (row, name) => row[name] === null || row[name] === undefined };
}

async function participant(params: Record<string, string>): Promise<{ socket: ParticipantClient; consentVersion: string }> {
  const res = await fetch(`${server!.url}/api/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ studyId: STUDY, params }) });
  const body = (await res.json()) as { ok: boolean; data: { token: string } };
  const socket: ParticipantClient = connect(server!.url, { auth: { token: body.data.token }, transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const state = await callOk(socket, 'session:state', {});
  return { socket, consentVersion: state.consent.version };
}

async function completed(pid: string, n: number, comments: string | null): Promise<void> {
  const { socket, consentVersion } = await participant({ PROLIFIC_PID: pid });
  await callOk(socket, 'consent:respond', { accept: true, version: consentVersion, clientTs: Date.now() });
  await callOk(socket, 'step:advance', { from: 'instructions', clientTs: Date.now() });
  // Integrity telemetry, so its sessions.csv columns hold values (numbers, booleans, a ";"-list) for the readers.
  const bins = Array.from({ length: 14 }, (_, i) => (i === 5 ? 9 : 0));
  await callOk(socket, 'telemetry:batch', {
    clientTs: Date.now(),
    pastes: [{ target: 'itinerary', chars: 40, at: Date.now() }],
    away: [{ at: Date.now() - 90_000, ms: 61_000 * n, hidden: true }],
    typing: [{ area: 'chat', typedChars: 10, keyEvents: 10, intervals: { count: 9, sumMs: 1_200, sumSqMs: 170_000, bins }, pauses: 0 }],
  });
  const done = nextPush(socket, 'chat:done');
  await callOk(socket, 'chat:send', { clientId: `readers-${n}-00000`, text: 'Three days in Porto for two, vegetarian, €900.', clientTs: Date.now() });
  await done;
  await callOk(socket, 'artifact:submit', { fields: { itinerary: `Day 1: Ribeira. Day 2: Serralves. Day 3: Douro. (${n})` }, clientTs: Date.now() });
  const answers = { outcome: 4, ai_usefulness: 5, communication: 3, satisfaction: 4, ...(comments ? { comments } : {}) };
  await callOk(socket, 'survey:submit', { answers, clientTs: Date.now() });
  socket.disconnect();
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'tandem-readers-'));
  exportDir = path.join(dataDir, 'export');
  server = await startTandem({ dataDir, port: 0, host: '127.0.0.1', offlineReplyDelayMs: 0, env: {}, logger: pino({ level: 'silent' }) });
  await completed('readers-1', 1, 'Helpful, "quoted", with a comma, and a\nsecond line.');
  await completed('readers-2', 2, null);
  const declined = await participant({ PROLIFIC_PID: 'readers-declined' });
  await callOk(declined.socket, 'consent:respond', { accept: false, version: declined.consentVersion, clientTs: Date.now() });
  declined.socket.disconnect();
  const working = await participant({ PROLIFIC_PID: 'readers-working' });
  await callOk(working.socket, 'consent:respond', { accept: true, version: working.consentVersion, clientTs: Date.now() });
  working.socket.disconnect();
  // A locked plan with a justified deviation, so deviations.csv has a row for the readers too.
  await seedLockedPlanWithDeviation(server.store, STUDY, Date.now());
  await server.close();
  server = undefined;
  const env = { ...process.env, DATA_DIR: dataDir, OPENAI_API_KEY: '' };
  await run(process.execPath, cli('cli/judge.ts', '--study', STUDY), { env, cwd: ROOT });
  await run(process.execPath, cli('cli/annotate.ts', '--study', STUDY), { env, cwd: ROOT });
  await run(process.execPath, cli('cli/export.ts', '--study', STUDY, '--out', exportDir), { env, cwd: ROOT });
}, 180_000);

afterAll(async () => {
  await server?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('Frictionless datapackage (JS) reads the export', () => {
  it('loads datapackage.json as a valid package with every file of the export as a resource', async () => {
    const pkg = await Package.load(path.join(exportDir, 'datapackage.json'), { strict: true });
    expect(pkg.errors).toEqual([]);
    expect(pkg.valid).toBe(true);
    expect([...pkg.resourceNames].sort()).toEqual(['annotations', 'artifacts', 'deviations', 'events', 'group_events', 'group_judgements', 'groups', 'judgements', 'messages', 'sessions']);
    // The study had data for every file but the group files (it has no group condition: they are there, and empty),
    // so no reading below is vacuous.
    for (const r of descriptor().resources)
      if (GROUP_FILES.includes(r.path)) expect(rawRows(r).rows, r.path).toEqual([]);
      else expect(rawRows(r).rows.length, r.path).toBeGreaterThan(0);
  });

  it('reads every CSV resource as a typed table: exact datetimes, integers, booleans, empties as null', async () => {
    const pkg = await Package.load(path.join(exportDir, 'datapackage.json'));
    for (const r of descriptor().resources.filter((x) => x.format === 'csv')) {
      const resource = pkg.resources.find((x) => x.name === r.name)!;
      expect(resource.tabular, r.name).toBe(true);
      const table = await resource.read({ keyed: true, cast: true });
      const { rows, missing } = rawRows(r);
      expect(table.length, r.name).toBe(rows.length);
      table.forEach((typed, i) => {
        for (const f of r.schema.fields) {
          const raw = rows[i]![f.name] as string;
          const value = typed[f.name];
          const where = `${r.name} row ${i} ${f.name}`;
          if (missing(rows[i]!, f.name)) {
            expect(value, where).toBeNull();
            continue;
          }
          if (f.type === 'datetime') expect((value as Date).getTime(), where).toBe(Date.parse(raw));
          else if (f.type === 'integer' || f.type === 'number') expect(value, where).toBe(Number(raw));
          else if (f.type === 'boolean') expect(value, where).toBe(raw === 'true');
          else expect(value, where).toBe(raw);
        }
      });
    }
    // sessions.csv: the declined and the working session have no submission; the working one no Likert answers.
    const sessions = await pkg.resources.find((x) => x.name === 'sessions')!.read({ keyed: true, cast: true });
    expect(sessions.filter((s) => s.submitted_at === null)).toHaveLength(2);
    expect(sessions.filter((s) => s.status === 'completed').every((s) => s.started_at instanceof Date && s.likert_outcome === 4)).toBe(true);
  });

  it('reads every JSONL resource through its Table Schema, row by row', async () => {
    const pkg = await Package.load(path.join(exportDir, 'datapackage.json'));
    for (const r of descriptor().resources.filter((x) => x.format === 'jsonl' && !GROUP_FILES.includes(x.path))) {
      const resource = pkg.resources.find((x) => x.name === r.name)!;
      const schema = await Schema.load(resource.descriptor.schema, { strict: true });
      expect(schema.errors, r.name).toEqual([]);
      const lines = (await resource.rawRead()).toString('utf8').split('\n').filter((l) => l !== '');
      const { rows, missing } = rawRows(r);
      expect(lines.length, r.name).toBe(rows.length);
      lines.forEach((line, i) => {
        const row = JSON.parse(line) as Record<string, unknown>;
        // castRow throws on any value its field's type and format do not accept.
        const typed = schema.castRow(schema.fieldNames.map((name) => (row[name] === null || row[name] === undefined ? '' : row[name])));
        r.schema.fields.forEach((f, k) => {
          const where = `${r.name} row ${i} ${f.name}`;
          if (missing(row, f.name)) expect(typed[k], where).toBeNull();
          else if (f.type === 'datetime') expect((typed[k] as Date).getTime(), where).toBe(Date.parse(row[f.name] as string));
          else if (f.type === 'object' || f.type === 'array') expect(typed[k], where).toEqual(row[f.name]);
          else expect(typed[k], where).toBe(row[f.name]);
        });
      });
    }
  });
});

/** The fenced example of `language` in the export's codebook.md. */
function codeBlock(language: string): string {
  const match = new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``).exec(readFileSync(path.join(exportDir, 'codebook.md'), 'utf8'));
  if (!match) throw new Error(`codebook.md has no ${language} example`);
  return match[1]!;
}

/** A python3 that can import pandas: $PYTHON, python3 on the PATH, or Debian's (python3-pandas). */
function pythonWithPandas(): string | null {
  for (const candidate of [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter((c): c is string => !!c)) {
    try {
      execFileSync(candidate, ['-c', 'import pandas'], { stdio: 'ignore' });
      return candidate;
    } catch {
      /* next */
    }
  }
  return null;
}
const python = pythonWithPandas();
const PANDAS_SKIP = 'skipped: no python3 with pandas (apt-get install -y python3-pandas, or set PYTHON)';
if (!python) console.warn(`exportReaders: pandas test ${PANDAS_SKIP}`);

describe(python ? 'pandas reads the export with the codebook types' : `pandas reads the export (${PANDAS_SKIP})`, () => {
  it.skipIf(!python)('gets the declared dtypes, the missing values and the row count of every file', async () => {
    const { stdout } = await run(python!, [path.join(ROOT, 'tests/support/read_export_pandas.py'), exportDir]);
    const read = JSON.parse(stdout) as Record<string, { rows: number; dtypes: Record<string, string>; missing: Record<string, number>; firstDatetime: Record<string, string> }>;
    const PANDAS: Record<string, string> = { integer: 'Int64', number: 'Float64', boolean: 'boolean', string: 'string', datetime: 'datetime64[ns, UTC]', object: 'object', array: 'object' };
    for (const r of descriptor().resources) {
      const got = read[r.name]!;
      const { rows, missing } = rawRows(r);
      expect(got.rows, r.name).toBe(rows.length);
      expect(Object.keys(got.dtypes), r.name).toEqual(r.schema.fields.map((f) => f.name));
      for (const f of r.schema.fields) {
        expect(got.dtypes[f.name], `${r.name}.${f.name}`).toBe(PANDAS[f.type]);
        expect(got.missing[f.name], `${r.name}.${f.name} missing`).toBe(rows.filter((row) => missing(row, f.name)).length);
        if (f.type === 'datetime' && got.firstDatetime[f.name]) {
          const first = rows.find((row) => !missing(row, f.name))![f.name] as string;
          expect(Date.parse(got.firstDatetime[f.name]!), `${r.name}.${f.name} first value`).toBe(Date.parse(first));
        }
      }
    }
    // The two sessions without a submission have no submitted_at.
    expect(read.sessions!.missing.submitted_at).toBe(2);
    expect(read.sessions!.dtypes.is_pilot).toBe('boolean');

    // The codebook's own pandas example runs as written in the export folder.
    const example = codeBlock('python');
    const { stdout: printed } = await run(python!, ['-c', `${example}\nprint(len(sessions), sessions["started_at"].dtype, sessions["is_pilot"].dtype, len(messages))`], { cwd: exportDir });
    expect(printed.trim()).toBe(`${csvRows('sessions.csv').length} datetime64[ns, UTC] boolean ${jsonlRows('messages.jsonl').length}`);
  }, 60_000);
});

/** Rscript with jsonlite (to read datapackage.json), or null. */
function rscript(): string | null {
  try {
    execFileSync('Rscript', ['-e', 'stopifnot(requireNamespace("jsonlite", quietly = TRUE))'], { stdio: 'ignore' });
    return 'Rscript';
  } catch {
    return null;
  }
}
const R = rscript();
const R_SKIP = 'skipped: no Rscript with jsonlite (apt-get install -y r-base-core r-cran-jsonlite)';
if (!R) console.warn(`exportReaders: R test ${R_SKIP}`);

describe(R ? 'R read.csv reads the export with the codebook types' : `R read.csv reads the export (${R_SKIP})`, () => {
  it.skipIf(!R)('gets the declared column classes, the missing values and the row count of every CSV file', async () => {
    const { stdout } = await run(R!, [path.join(ROOT, 'tests/support/read_export_r.R'), exportDir]);
    type RRead = { rows: number; columns: string[]; classes: Record<string, string>; missing: Record<string, number>; firstDatetime: Record<string, number> | [] };
    const read = JSON.parse(stdout) as Record<string, RRead>;
    const CLASSES: Record<string, string> = { integer: 'integer', number: 'numeric', boolean: 'logical', string: 'character', datetime: 'POSIXct' };
    const csv = descriptor().resources.filter((r) => r.format === 'csv');
    expect(Object.keys(read).sort()).toEqual(csv.map((r) => r.name).sort());
    for (const r of csv) {
      const got = read[r.name]!;
      const { rows, missing } = rawRows(r);
      expect(got.rows, r.name).toBe(rows.length);
      expect(got.columns, r.name).toEqual(r.schema.fields.map((f) => f.name));
      const firsts = Array.isArray(got.firstDatetime) ? {} : got.firstDatetime;
      for (const f of r.schema.fields) {
        expect(got.classes[f.name], `${r.name}.${f.name}`).toBe(CLASSES[f.type] ?? 'character');
        expect(got.missing[f.name], `${r.name}.${f.name} missing`).toBe(rows.filter((row) => missing(row, f.name)).length);
        if (f.type === 'datetime' && rows.some((row) => !missing(row, f.name))) {
          const first = rows.find((row) => !missing(row, f.name))![f.name] as string;
          expect(firsts[f.name], `${r.name}.${f.name} first value`).toBe(Date.parse(first));
        }
      }
    }
    // The codebook's own R example runs as written in the export folder.
    const { stdout: printed } = await run(R!, ['-e', `${codeBlock('r')}\ncat(nrow(sessions), class(sessions$started_at)[[1]], class(sessions$is_pilot))`], { cwd: exportDir });
    expect(printed.trim()).toBe(`${csvRows('sessions.csv').length} POSIXct logical`);
  }, 60_000);
});
