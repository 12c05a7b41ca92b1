/**
 * The storage interface every service, handler, CLI and exporter uses (the contract itself, with its row
 * types, is server/db/storeInterface.ts; the engine is chosen by server/db/openStore.ts).
 */
export * from './storeInterface';
export { openStore, openStoreAt, storeConfigFromEnv, isPostgresUrl, DATABASE_FILE_NAME, type StoreConfig } from './openStore';
