/**
 * The reply cache a teamwork-seat condition opens (server/services/providers.ts: the store's, on SQLite the
 * file .judge-cache.sqlite beside the database, with its own handle) is closed when the server closes.
 * Seen through SQLite itself: the cache runs in WAL mode, and SQLite removes the -wal file when the last
 * connection to the database closes, so the file is there while the server runs and gone once it closed.
 * Real server, real SQLite files, real socket.io; the study's judges are the offline reference models.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileReplyCache, REPLY_CACHE_FILE_NAME } from '../../lib/storage';
import { callOk, joinToWorkspace, nextPush, startTestServer } from '../support/integrationHarness';

const STUDY = 'teamwork-seat'; // studies/teamwork-seat.yaml: every condition is `provider: teamwork`

describe('the seat reply cache at server close', () => {
  it('is closed with the server once a teamwork reply opened it', async () => {
    const t = await startTestServer();
    try {
      const cacheFile = path.join(t.dataDir, REPLY_CACHE_FILE_NAME);
      const { socket } = await joinToWorkspace(t, STUDY, { PROLIFIC_PID: 'P-seat-cache-close' });
      // The first message starts the task (not judged); the judges label the second through the cache.
      for (const [i, text] of ['ready', 'Are there any road closures on either route?'].entries()) {
        const done = nextPush(socket, 'chat:done');
        await callOk(socket, 'chat:send', { clientId: `seat-cache-close-${i}`, text, clientTs: Date.now() });
        expect((await done).message.status).toBe('complete');
      }
      // The cache is open, with its WAL file.
      expect(existsSync(cacheFile)).toBe(true);
      expect(existsSync(`${cacheFile}-wal`)).toBe(true);

      await t.server.close();
      expect(existsSync(`${cacheFile}-wal`)).toBe(false);
      expect(existsSync(`${cacheFile}-shm`)).toBe(false);
      // What the reply cached is kept (closing checkpointed it into the file).
      const reopened = openFileReplyCache(cacheFile);
      try {
        expect(await reopened.count()).toBeGreaterThan(0);
      } finally {
        await reopened.close();
      }
    } finally {
      await t.close();
    }
  });

  it('is never opened by a server whose teamwork conditions made no reply', async () => {
    const t = await startTestServer();
    try {
      await joinToWorkspace(t, STUDY, { PROLIFIC_PID: 'P-seat-cache-unused' });
      await t.server.close();
      expect(existsSync(path.join(t.dataDir, REPLY_CACHE_FILE_NAME))).toBe(false);
    } finally {
      await t.close();
    }
  });
});
