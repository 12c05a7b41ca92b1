import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_VERSION } from './columns';
import type { RedactionCounts } from './redaction';
import type { FreeTextExport } from '../../common/study';

/** manifest.json: provenance of one export. Written last, it hashes every other file. */

export interface ExportFilters {
  studyId: string;
  includePilot: boolean;
  includeIdentities: boolean;
  includeUnconsented: boolean;
}

export interface AuditSummary {
  total: number;
  byAction: Record<string, number>;
  firstAt: string | null;
  lastAt: string | null;
  /** The latest entries, newest first (who, what, when) — no personal data. */
  recent: { at: string; actor: string; action: string }[];
}

export interface ManifestFile {
  path: string;
  rows: number | null;
  bytes: number;
  sha256: string;
}

export interface Manifest {
  schema_version: string;
  app: { name: string; version: string };
  created_at: string;
  study: { id: string; title: string | null; status: string | null };
  filters: { include_pilot: boolean; include_identities: boolean; include_unconsented: boolean; withdrawn_excluded: true };
  counts: {
    sessions: number;
    messages: number;
    events: number;
    artifacts: number;
    artifact_files: number;
    judgements: number;
    /** Rows of group_judgements.csv (1.7.0). */
    group_judgements: number;
    annotations: number;
    identities: number | null;
    excluded_pilot_sessions: number;
    /** Sessions that never answered the consent (bare-link visits, bots) left out; 0 with --include-unconsented. */
    excluded_unconsented_sessions: number;
    withdrawn_participants: number;
  };
  /** The study's export.free_text setting and how many free-text survey answers it applied to. */
  free_text: { setting: FreeTextExport; answers: number };
  files: ManifestFile[];
  redactions: RedactionCounts & { total: number };
  audit: AuditSummary;
}

let cachedVersion: string | null = null;

/** The app version from the project's package.json. */
export function appVersion(): string {
  if (cachedVersion) return cachedVersion;
  const path = fileURLToPath(new URL('../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
  cachedVersion = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  return cachedVersion;
}

export function buildManifest(input: {
  createdAt: string;
  filters: ExportFilters;
  study: { title: string | null; status: string | null };
  counts: Manifest['counts'];
  freeText: Manifest['free_text'];
  files: ManifestFile[];
  redactions: RedactionCounts;
  audit: AuditSummary;
}): Manifest {
  const total = Object.values(input.redactions).reduce((a, b) => a + b, 0);
  return {
    schema_version: SCHEMA_VERSION,
    app: { name: 'tandem', version: appVersion() },
    created_at: input.createdAt,
    study: { id: input.filters.studyId, ...input.study },
    filters: {
      include_pilot: input.filters.includePilot,
      include_identities: input.filters.includeIdentities,
      include_unconsented: input.filters.includeUnconsented,
      withdrawn_excluded: true,
    },
    counts: input.counts,
    free_text: input.freeText,
    files: input.files,
    redactions: { ...input.redactions, total },
    audit: input.audit,
  };
}
