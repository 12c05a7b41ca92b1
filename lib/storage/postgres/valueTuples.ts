/**
 * The VALUES list of a multi-row INSERT: `($1, $2), ($3, $4)` for two rows of two values, and the values in that
 * order. Used by repositories that insert several rows with one statement and by db:copy's PostgreSQL target.
 */
export function valueTuples<V>(rows: readonly (readonly V[])[]): { sql: string; values: V[] } {
  const values: V[] = [];
  const sql = rows.map((row) => `(${row.map((v) => (values.push(v), `$${values.length}`)).join(', ')})`).join(', ');
  return { sql, values };
}
