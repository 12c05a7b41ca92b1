/**
 * npm run withdraw -- --study <id> --participant <platform id>
 *
 * Deletes everything the participant contributed to the study (DATA_DIR, default ./data), keeps a
 * tombstone without personal data so later exports and analyses leave them out, and audits the action. In a
 * group, only their messages, edits and group events go; the group's record keeps a `withdrawn` event.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE_NAME, openStore, storeConfigFromEnv } from '../lib/storage';
import { cliDataDirAnnounced } from './dataDir';
import { PseudonymKeyMismatchError } from '../lib/pseudonym';
import { withdrawParticipant } from '../server/admin/withdrawal';
import { cliActor, flagErrors, StudyIdFlag } from '../research/exports/cliSupport';

const USAGE = 'usage: npm run withdraw -- --study <id> --participant <platform id>';

const Flags = z
  .object({
    study: StudyIdFlag,
    participant: z.string().trim().min(1, 'must be the platform id (e.g. the PROLIFIC_PID)').max(200),
  })
  .strict();

async function main(): Promise<number> {
  let raw;
  try {
    raw = parseArgs({ options: { study: { type: 'string' }, participant: { type: 'string' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const flags = Flags.safeParse(raw);
  if (!flags.success) {
    console.error(`invalid flags:\n${flagErrors(flags.error)}\n${USAGE}`);
    return 2;
  }
  const dataDir = cliDataDirAnnounced();
  const config = storeConfigFromEnv(dataDir);
  if (!config.databaseUrl && !existsSync(join(dataDir, DATABASE_FILE_NAME))) {
    console.error(`no database at ${join(dataDir, DATABASE_FILE_NAME)} (set DATA_DIR to the server's data folder)`);
    return 1;
  }
  const store = await openStore(config);
  try {
    if (!(await store.studies.get(flags.data.study))) {
      console.error(`no study "${flags.data.study}" in ${store.description}`);
      return 1;
    }
    // The seats they held, to say what happened to their groups (the rows name no one after the withdrawal).
    const seats = [];
    for (const id of await store.withdrawals.findSessionIds(flags.data.study, flags.data.participant)) {
      const seat = await store.groups.memberBySession(id);
      if (seat) seats.push(seat);
    }
    const result = await withdrawParticipant(store, {
      dataDir,
      studyId: flags.data.study,
      platformUserId: flags.data.participant,
      actor: cliActor(),
    });
    console.log(
      `withdrawn from "${flags.data.study}": ${result.deletedSessions} session(s) deleted` +
        `${result.deletedSessions === 0 ? ' (no session under that id; the tombstone still keeps any future one out)' : ''}; ` +
        `${result.purgedCachedReplies} cached judge/annotator repl${result.purgedCachedReplies === 1 ? 'y' : 'ies'} purged; ` +
        `reference ${result.reference}`,
    );
    for (const seat of seats)
      console.log(`  group ${seat.groupId}: seat ${seat.seat} kept as withdrawn; their messages, edits and group events deleted; a "withdrawn" event records the counts`);
    return 0;
  } catch (error) {
    if (error instanceof PseudonymKeyMismatchError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  } finally {
    await store.close();
  }
}

process.exitCode = await main();
