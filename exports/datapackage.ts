import { SCHEMA_VERSION, type ColumnDef, type DatasetFileDef } from './columns';
import type { WrittenFile } from './writers';

/** datapackage.json (Frictionless Data Package v1) generated from columns.ts and the written files. */

function field(c: ColumnDef): Record<string, unknown> {
  const f: Record<string, unknown> = { name: c.name, type: c.type, description: c.description };
  const constraints: Record<string, unknown> = {};
  if (c.values) constraints.enum = c.values;
  if (!c.nullable && c.name === 'session_id') constraints.required = true;
  if (Object.keys(constraints).length) f.constraints = constraints;
  if (c.type === 'boolean') {
    f.trueValues = ['true'];
    f.falseValues = ['false'];
  }
  if (c.type === 'array') f.description = `${c.description} (CSV: ";"-joined)`;
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
        schema: { fields: file.columns.map(field), missingValues: [''] },
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
