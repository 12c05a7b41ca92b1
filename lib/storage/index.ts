/**
 * The storage interface every service, handler, CLI and exporter uses (the contract itself, with its row
 * types, is lib/storage/contract/store.ts; the engine is chosen by lib/storage/openStore.ts).
 */
export * from './contract/store';
export { openStore, openStoreAt, storeConfigFromEnv, isPostgresUrl, DATABASE_FILE_NAME, type StoreConfig } from './openStore';
