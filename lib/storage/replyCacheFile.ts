/**
 * The judge/annotator reply cache as a standalone SQLite file, for dataset-mode runs (a dataset folder has
 * no store) and tests. Study-mode runs use `store.openReplyCache()`, which picks the engine's own cache.
 */
export { openFileReplyCache, REPLY_CACHE_FILE_NAME } from './sqlite/replyCache';
