/** One column of a dataset file: its name, type and meaning (the codebook and datapackage.json are generated from these). */
export type ColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'datetime' | 'object' | 'array';

export interface ColumnDef {
  name: string;
  type: ColumnType;
  description: string;
  /** Allowed values, when the column is categorical. */
  values?: readonly string[];
  /** True when the cell may be empty (CSV) / null (JSONL). */
  nullable?: boolean;
  unit?: string;
}
