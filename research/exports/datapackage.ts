import { SCHEMA_VERSION, type ColumnDef, type DatasetFileDef } from './columns';
import type { WrittenFile } from './writers';

/** datapackage.json (Frictionless Data Package v1) generated from columns.ts and the written files. */

/**
 * How datetimes are written: `Date.toISOString()`, always with milliseconds and Z (2026-11-30T09:15:02.481Z).
 * Table Schema's default datetime format has no fraction, so Frictionless readers rejected every value;
 * this strptime pattern (the spec's syntax) is read exactly by frictionless-py and datapackage-js.
 */
export const DATETIME_FORMAT = '%Y-%m-%dT%H:%M:%S.%fZ';

function field(c: ColumnDef, format: DatasetFileDef['format']): Record<string, unknown> {
  // A list in a CSV cell is ";"-joined text, not the JSON array Table Schema's array type reads: declare it as text.
  const type = c.type === 'array' && format === 'csv' ? 'string' : c.type;
  const f: Record<string, unknown> = { name: c.name, type, description: c.description };
  if (c.type === 'datetime') f.format = DATETIME_FORMAT;
  const constraints: Record<string, unknown> = {};
  if (c.values) constraints.enum = c.values;
  if (!c.nullable && c.name === 'session_id') constraints.required = true;
  if (Object.keys(constraints).length) f.constraints = constraints;
  if (c.type === 'boolean') {
    f.trueValues = ['true'];
    f.falseValues = ['false'];
  }
  if (c.type === 'array' && format === 'csv') f.description = `${c.description} (a list, ";"-joined)`;
  return f;
}

export function buildDataPackage(
  files: readonly DatasetFileDef[],
  written: ReadonlyMap<string, WrittenFile>,
  context: { studyId: string; createdAt: string; appVersion: string },
): Record<string, unknown> {
  return {
    profile: 'data-package',
    name: `tandem-${context.studyId}`.toLowerCase().replace(/[^a-z0-9._-]/g, '-'),
    title: `Tandem study ${context.studyId}`,
    version: SCHEMA_VERSION,
    created: context.createdAt,
    description: 'Anonymised human–AI collaboration study data exported by Tandem. See codebook.md.',
    sources: [{ title: `Tandem ${context.appVersion}` }],
    resources: files.map((file) => {
      const w = written.get(file.path);
      const resource: Record<string, unknown> = {
        name: file.name,
        path: file.path,
        description: file.description,
        format: file.format,
        mediatype: file.format === 'csv' ? 'text/csv' : 'application/x-ndjson',
        encoding: 'utf-8',
        schema: { fields: file.columns.map((c) => field(c, file.format)), missingValues: [''] },
      };
      if (file.format === 'csv') {
        resource.profile = 'tabular-data-resource';
        resource.dialect = { delimiter: ',', header: true, lineTerminator: '\n', quoteChar: '"', doubleQuote: true };
      }
      if (w) {
        resource.bytes = w.bytes;
        resource.hash = `sha256:${w.sha256}`;
      }
      return resource;
    }),
  };
}
