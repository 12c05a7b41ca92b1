/**
 * The synchronous shape of an async repository interface: better-sqlite3 runs every statement
 * synchronously, so the SQLite repositories implement `Sync<XRepo>` and sqliteStore.ts wraps each
 * method in a promise (after the transaction gate). The compiler keeps both shapes in step.
 */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};
