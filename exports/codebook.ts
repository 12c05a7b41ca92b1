import { SCHEMA_VERSION, type DatasetFileDef } from './columns';

/** codebook.md: a human-readable description of every file and column, generated from columns.ts. */

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderCodebook(files: readonly DatasetFileDef[], context: { studyId: string; createdAt: string }): string {
  const lines: string[] = [
    `# Codebook — study \`${context.studyId}\``,
    '',
    `Dataset schema version ${SCHEMA_VERSION}, exported ${context.createdAt}.`,
    '',
    'Conventions: `session_id` is a pseudonym that joins all files. In CSV files an empty cell means missing,',
    'booleans are `true`/`false`, lists are `;`-joined. Times are ISO 8601 in UTC unless the unit says ms.',
    'Personal data in text is replaced by `[REDACTED:<kind>]` (kinds: url, identity, email, ip, phone); ',
    '`manifest.json` counts the replacements. Withdrawn participants are absent from every file.',
    '',
    'Spreadsheet safety (CSV files): a cell of a text column (any type but integer and number) that begins with',
    '`=`, `+`, `-`, `@`, a tab, a carriage return or `\'` is written with a leading `\'` (`=HYPERLINK(…)` → `\'=HYPERLINK(…)`),',
    'so a spreadsheet shows it as text instead of running it as a formula (OWASP CSV injection). Integer and number',
    'columns hold plain numbers and are never changed (`-3` stays `-3`). Dropping one leading `\'` from such a text cell gives the raw value.',
    '',
  ];
  for (const file of files) {
    lines.push(`## \`${file.path}\``, '', `${file.description} One row per ${file.row}.`, '');
    lines.push('| column | type | meaning |', '|---|---|---|');
    for (const c of file.columns) {
      const type = `${c.type}${c.unit ? ` (${c.unit})` : ''}${c.nullable ? ', may be empty' : ''}`;
      const values = c.values ? ` Values: ${c.values.map((v) => `\`${v}\``).join(', ')}.` : '';
      lines.push(`| \`${c.name}\` | ${cell(type)} | ${cell(c.description + values)} |`);
    }
    lines.push('');
  }
  lines.push(
    '## `artifacts/`',
    '',
    'Uploaded files, as `artifacts/<session_id>/<n>-<field id>.<ext>` (`<n>` counts the session\'s uploads from 1;',
    'the participant\'s own file name is not kept), named in `artifacts.jsonl`. `manifest.json` lists each with its',
    'size and sha256.',
    '',
    '## `manifest.json`, `datapackage.json`',
    '',
    'The manifest records the schema and app versions, export time, filters, row counts, the size and sha256 of',
    'every other file (uploaded files included; `rows` is null for files that are not tables), redaction counts',
    'and a summary of the audit log. `datapackage.json` is a Frictionless Data Package.',
    '',
  );
  return lines.join('\n');
}
