/**
 * The storage front door: every service, handler, CLI, research tool and exporter imports storage from here and
 * nowhere else in lib/storage/ (`npm run lint:deps` checks it). The contract, with its row types, is in contract/
 * (contract/store.ts gathers it); the engine is chosen by openStore.ts. The PostgreSQL engine is loaded lazily
 * through its own index (postgres/index.ts) so that a SQLite deployment never loads `pg`.
 */
export * from './contract/store';
export * from './contract/reviews';
export * from './contract/sessionState';
export * from './contract/userMessageAck';
export * from './contract/draftSave';
export * from './contract/artifactSubmit';
export * from './contract/surveySubmit';
export * from './contract/assistantReplyWrite';
export { openStore, openStoreAt, storeConfigFromEnv, isPostgresUrl, DATABASE_FILE_NAME, type StoreConfig } from './openStore';
/** The judge/annotator reply cache as a standalone SQLite file, for dataset-mode runs (a dataset folder has no store) and tests. */
export { openFileReplyCache, REPLY_CACHE_FILE_NAME } from './sqlite/replyCache';
/** `npm run db:copy`: a whole database to another, of either engine. */
export { copyDatabase, CopyError, type CopyOptions, type CopyReport } from './copy/copyDatabase';
/** A group's shared document (its text per field) rebuilt from its stored Yjs updates: the monitor's live view and the judged text. */
export { groupDocument, type GroupDocument } from './groupDocText';
