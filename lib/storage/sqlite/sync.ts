/**
 * The synchronous shape of an async repository interface: better-sqlite3 runs every statement
 * synchronously, so the SQLite repositories implement `Sync<XRepo>` and sqliteStore.ts wraps each
 * method in a promise (after the transaction gate). The compiler keeps both shapes in step.
 */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

/** A promise of a synchronous op's result (or of its exception), without another tick. */
export function settle<R>(op: () => R): Promise<R> {
  try {
    return Promise.resolve(op());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}
