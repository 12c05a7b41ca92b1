import { SCHEMA_VERSION, type DatasetFileDef } from './columns';
import { DATETIME_FORMAT } from './datapackage';

/** codebook.md: a human-readable description of every file and column, generated from columns.ts. */

export const PREREGISTRATION_JSON_DESCRIPTION =
  'Every locked version of the study\'s analysis plan, oldest first (the last is in force); versions is empty when the plan was never locked.';

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
    'The NUL character (U+0000) is dropped from all text where it enters the server (participants\' messages, answers',
    'and link parameters, model replies), so no text in the dataset holds one, on either database engine; a lone',
    'surrogate (half of a UTF-16 pair, from a broken paste) is replaced there by U+FFFD.',
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
    '## `preregistration.json`',
    '',
    `${PREREGISTRATION_JSON_DESCRIPTION} Keys: \`schema_version\` (1), \`study_id\`, \`current_version\` (null when never`,
    'locked) and `versions`, each with `version`, `locked_at` (ISO 8601, UTC) and `locked_at_ms`, `locked_by`, `plan_file`,',
    '`plan_hash` (sha256 of the plan file), `study_hash` (sha256 over `fingerprint`), `plan` (the validated plan: hypotheses,',
    'primary and secondary outcomes and comparisons, sample size and rationale, stopping rule, exclusions, analysis settings)',
    'and `fingerprint`: one `{file, field, hash}` per hashed field of what defined the study as run (study settings, tasks,',
    'each condition\'s provider, model, temperature and system prompt, survey items, rubrics, material files, judge settings).',
    'Deviations from it are in `deviations.csv`; `npm run analyze -- <dataset> --prereg` runs the plan (docs/preregistration.md).',
    '',
    '## Reading the files',
    '',
    `Datetimes are written as \`2026-11-30T09:15:02.481Z\` (always milliseconds, always UTC): Table Schema format`,
    `\`${DATETIME_FORMAT}\`, as declared in \`datapackage.json\`. Only an empty CSV cell is missing (not "NA").`,
    'Column types map to readers as follows (tested against each export layout):',
    '',
    '| type | pandas | R `read.csv` |',
    '|---|---|---|',
    '| `integer` | `Int64` | `integer` |',
    '| `number` | `Float64` | `numeric` |',
    '| `boolean` | `boolean` | `logical` |',
    '| `string` | `string` | `character` |',
    `| \`datetime\` | \`pd.to_datetime(col, format="${DATETIME_FORMAT}", utc=True)\` | \`as.POSIXct(col, format="%Y-%m-%dT%H:%M:%OSZ", tz="UTC")\` |`,
    '| `object`, `array` (JSONL) | `object` (dicts, lists) | `jsonlite::stream_in` |',
    '',
    '```python',
    'import pandas as pd',
    'sessions = pd.read_csv("sessions.csv", keep_default_na=False, na_values=[""],',
    '                       dtype={"is_pilot": "boolean", "duration_s": "Float64", "user_tokens": "Int64"})',
    `sessions["started_at"] = pd.to_datetime(sessions["started_at"], format="${DATETIME_FORMAT}", utc=True)`,
    'messages = pd.read_json("messages.jsonl", lines=True, dtype=False, convert_dates=False)',
    '```',
    '',
    '```r',
    'sessions <- read.csv("sessions.csv", na.strings = "", colClasses = c(is_pilot = "logical", started_at = "character"))',
    'sessions$started_at <- as.POSIXct(sessions$started_at, format = "%Y-%m-%dT%H:%M:%OSZ", tz = "UTC")',
    '```',
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
