/**
 * `npm run bench:sqlite-rows` — what reading rows costs on SQLite, the store's way (raw arrays and one object literal
 * per statement, lib/storage/sqlite/rowReader.ts) against better-sqlite3's own row objects, side by side in one
 * process on the same database. A fresh database in a temp folder gets N sessions of M messages each (user messages
 * of a line, assistant replies of ~1.4 kB with params and usage, as the load bench's are) and two events per
 * message; then each read runs `--calls` times per way, taking turns, and the CPU per call is printed with the ratio.
 *
 *   npm run bench:sqlite-rows -- [--sessions 500] [--messages 6] [--calls 20000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { openDatabase } from '../lib/storage/sqlite/database';
import { migrate } from '../lib/storage/sqlite/migrate';
import { Statements } from '../lib/storage/sqlite/statements';
import { MESSAGE_SQL } from '../lib/storage/sql/messages';
import { SESSION_SQL } from '../lib/storage/sql/sessions';
import { EVENT_SQL } from '../lib/storage/sql/events';
import { median } from '../research/simulation/latencyStats';
import { benchFlags } from './benchFlags';

const Flags = z.object({
  sessions: z.coerce.number().int().min(1).max(100_000).default(500),
  messages: z.coerce.number().int().min(1).max(1_000).default(6),
  calls: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
});
const f = benchFlags('bench:sqlite-rows', { sessions: { type: 'string' }, messages: { type: 'string' }, calls: { type: 'string' } }, Flags);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-bench-rows-'));
const db = openDatabase(path.join(dir, 'tandem.sqlite'));
try {
  migrate(db);
  const ids = seed();
  const q = new Statements(db);
  // `one`: a single-row read (get / Statements.one), else every row (all / Statements.rows).
  const reads: { name: string; sql: { readonly sqlite: string }; one: boolean }[] = [
    { name: `a session's messages (${f.messages} rows)`, sql: MESSAGE_SQL.listForSession, one: false },
    { name: `a session's events (${2 * f.messages} rows)`, sql: EVENT_SQL.listForSession, one: false },
    { name: 'a session row', sql: SESSION_SQL.get, one: true },
  ];
  console.log(`bench:sqlite-rows: ${f.sessions} sessions × ${f.messages} messages, ${f.calls} calls per read and way (CPU µs per call)`);
  for (const r of reads) {
    const objects = db.prepare(r.sql.sqlite);
    const ways = {
      'better-sqlite3 objects': (id: string) => (r.one ? objects.get(id) : objects.all(id)),
      'raw + literal (the store)': (id: string) => (r.one ? q.one(r.sql, id) : q.rows(r.sql, id)),
    };
    const us = { 'better-sqlite3 objects': [] as number[], 'raw + literal (the store)': [] as number[] };
    for (let round = 0; round < 4; round++) {
      for (const [way, read] of Object.entries(ways)) {
        const t0 = process.cpuUsage();
        for (let i = 0; i < f.calls; i++) read(ids[i % ids.length]!);
        const t = process.cpuUsage(t0);
        // Round 0 warms both ways up (JIT, page cache) and is not counted.
        if (round > 0) us[way as keyof typeof us].push((t.user + t.system) / f.calls);
      }
    }
    const base = median(us['better-sqlite3 objects']);
    const mine = median(us['raw + literal (the store)']);
    console.log(`  ${r.name.padEnd(32)} objects ${base.toFixed(1).padStart(6)} µs   store ${mine.toFixed(1).padStart(6)} µs   (${(mine / base).toFixed(2)}×)`);
  }
} finally {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/** N sessions with their messages and events, written with plain SQL (what is read is what matters here). */
function seed(): string[] {
  const reply = 'A plan for the trip, with the trains, the hotels and what each day costs. '.repeat(19);
  const params = JSON.stringify({ temperature: 0.7, max_tokens: 800 });
  const usage = JSON.stringify({ promptTokens: 412, completionTokens: 200, totalTokens: 612 });
  db.prepare(`INSERT INTO studies (id, title, status, definition_hash, created_at, updated_at) VALUES ('study', 'Rows', 'live', 'hash', 1, 1)`).run();
  const session = db.prepare(`INSERT INTO sessions (id, study_id, task_id, condition_id, step, status, created_at, updated_at) VALUES (?, 'study', 'task', 'a', 'workspace', 'active', 1, 1)`);
  const message = db.prepare(`INSERT INTO messages (id, session_id, event_seq, role, text, client_id, reply_to, status, tokens, provider, model, params, usage, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?, ?, ?, ?, ?)`);
  const event = db.prepare(`INSERT INTO events (session_id, seq, type, payload, server_ts, client_ts) VALUES (?, ?, ?, ?, ?, ?)`);
  const ids: string[] = [];
  db.transaction(() => {
    for (let s = 0; s < f.sessions; s++) {
      const id = `session-${s}`;
      ids.push(id);
      session.run(id);
      for (let m = 0; m < f.messages; m++) {
        const user = m % 2 === 0;
        const seq = 2 * m + 1;
        message.run(`${id}-m${m}`, id, seq, user ? 'user' : 'assistant', user ? `What about day ${m}?` : reply, user ? `c${m}` : null, user ? null : `${id}-m${m - 1}`,
          user ? 5 : 200, user ? null : 'openai', user ? null : 'gpt-4o', user ? null : params, user ? null : usage, seq);
        event.run(id, seq, user ? 'chat.user' : 'chat.assistant', JSON.stringify({ messageId: `${id}-m${m}` }), seq, user ? seq : null);
        event.run(id, seq + 1, 'artifact.draft', JSON.stringify({ fields: { plan: reply.slice(0, 300) } }), seq + 1, seq + 1);
      }
    }
  })();
  return ids;
}
