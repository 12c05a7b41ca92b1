/**
 * Group-level analysis (research/analysis/groups/) on a synthetic group-study export whose reference values come
 * from pandas/scipy: tests/fixtures/analysis-groups/groups_ref.py writes the dataset and expected.json. The calls it
 * makes, quoted:
 *
 *   people = room[room.sender_kind == "participant"].groupby("session_id").tokens.sum()
 *   agents = room[room.sender_kind.isin(["agent", "researcher"])].groupby("group_id").tokens.sum()
 *   C = people_tokens + 0.5 * agent_tokens
 *   Q = float(rec.quality) if pd.notna(rec.quality) else np.median(members.quality.dropna())   # groups.csv's judge score first
 *   z = lambda x: (x - x.mean()) / x.std(ddof=1);  sc.groupby("task").quality.transform(z)  (and cost);  pz = zq - zc
 *   token_share = people.get(sid) / people_tokens;  edit_share = group_edits / members.group_edits.sum()
 *   stats.mannwhitneyu(pz_facilitated, pz_silent, alternative="two-sided", method="auto")   # per task
 *   stats.spearmanr(t.quality, t.cost)                                                       # per task
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAnalysis } from '../../research/analysis/runAnalysis';
import { DEFAULT_OPTIONS, type Summary } from '../../research/analysis/summary';
import { parseAnalyzeArgs } from '../../research/analysis/analyzeFlags';
import { ROOT } from '../support/integrationHarness';

const FIXTURE = join(ROOT, 'tests/fixtures/analysis-groups');
const REFERENCE = join(ROOT, 'tests/fixtures/analysis-reference');
const options = { ...DEFAULT_OPTIONS, bootstrapReplicates: 200 };
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'tandem-groups-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function analyse(dataset: string, extra: Partial<typeof options> = {}): Promise<{ summary: Summary; report: string; warnings: string[] }> {
  const out = tmp();
  const warnings: string[] = [];
  await runAnalysis(dataset, out, { ...options, ...extra }, { warn: (w) => warnings.push(w) });
  return { summary: JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary, report: readFileSync(join(out, 'report.html'), 'utf8'), warnings };
}

/** groups.csv's quality column (the last). */
const GROUP_QUALITY = 10;
/** Edits each line's cells in place, the header's too (the fixture's cells hold no commas). */
function editCsv(path: string, edit: (cells: string[]) => void): void {
  const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => l.split(','));
  lines.forEach(edit);
  writeFileSync(path, lines.map((c) => c.join(',')).join('\n') + '\n');
}

/** Within 1e-9 relative (1e-12 absolute near zero), as the analysis reference fixture. */
const close = (actual: number | null | undefined, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(Math.max(1e-12, 1e-9 * Math.abs(expected)));
};

interface ExpectedGroup {
  task: string;
  condition: string;
  people_tokens: number;
  agent_tokens: number;
  cost: number;
  quality: number | null;
  members_median: number | null;
  quality_from_members: boolean;
  z_quality?: number;
  z_cost?: number;
  pz?: number;
  members: Record<string, { tokens: number; token_share: number; edits: number; edit_share: number }>;
}
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  n_groups: number;
  n_scored: number;
  n_quality_from_members: number;
  n_people: number;
  groups: Record<string, ExpectedGroup>;
  conditions: Record<string, { u: number; p: number; mean_a: number; mean_b: number; sd_a: number; median_b: number; spearman_qc: number }>;
};

describe('group-level analysis', () => {
  it('computes C, Q, Pz within task over groups and each member\'s shares as pandas does', async () => {
    const { summary } = await analyse(FIXTURE);
    const g = summary.groups!;
    expect(g.unit).toBe('group');
    expect([g.n_groups, g.n_scored, g.n_unscored, g.n_people]).toEqual([expected.n_groups, expected.n_scored, expected.n_groups - expected.n_scored, expected.n_people]);
    expect(g.n_quality_from_members).toBe(expected.n_quality_from_members);
    expect(Object.keys(g.groups).sort()).toEqual(Object.keys(expected.groups).sort());
    for (const [id, e] of Object.entries(expected.groups)) {
      const r = g.groups[id]!;
      expect([r.task, r.condition, r.people_tokens, r.agent_tokens]).toEqual([e.task, e.condition, e.people_tokens, e.agent_tokens]);
      close(r.cost, e.cost);
      expect(r.quality).toBe(e.quality);
      if (e.pz === undefined) expect([r.z_quality, r.z_cost, r.pz, r.quadrant]).toEqual([null, null, null, null]);
      else {
        close(r.z_quality, e.z_quality!);
        close(r.z_cost, e.z_cost!);
        close(r.pz, e.pz);
      }
      expect(Object.keys(r.members).sort()).toEqual(Object.keys(e.members).sort());
      for (const [sid, m] of Object.entries(e.members)) {
        expect([r.members[sid]!.tokens, r.members[sid]!.edits]).toEqual([m.tokens, m.edits]);
        close(r.members[sid]!.token_share, m.token_share);
        close(r.members[sid]!.edit_share, m.edit_share);
      }
    }
    // the researcher who spoke as the agent in g02 counts on the agent side
    expect(g.groups.g02!.researcher_turns).toBe(1);
  });

  it('compares conditions with groups as the unit (Mann–Whitney per task as scipy, Spearman of Q and C)', async () => {
    const { summary } = await analyse(FIXTURE);
    const c = summary.groups!.conditions;
    expect(c.names).toEqual(['facilitated', 'silent']);
    for (const [task, e] of Object.entries(expected.conditions)) {
      const pz = c.tasks[task]!.pz!;
      const cmp = pz.comparisons[0]!;
      expect([cmp.a, cmp.b, cmp.n_a, cmp.n_b]).toEqual(['facilitated', 'silent', 4, 4]);
      close(cmp.u, e.u);
      close(cmp.p, e.p);
      close(cmp.diff, e.mean_a - e.mean_b);
      close(pz.facilitated!.mean, e.mean_a);
      close(pz.facilitated!.sd, e.sd_a);
      close(pz.silent!.median, e.median_b);
      close(summary.groups!.tasks[task]!.spearman_qc!.rho, e.spearman_qc);
    }
  });

  it('keeps group sessions out of the per-session analysis and leaves simulated people out unless asked', async () => {
    const { summary, warnings } = await analyse(FIXTURE);
    // the per-session part sees the two single-person sessions only (not 50 group members with zero solo tokens)
    expect(summary.n_sessions).toBe(2);
    expect(Object.keys(summary.sessions).sort()).toEqual(['solo1', 'solo2']);
    expect(summary.n_simulated_excluded).toBe(3);
    expect(summary.groups!.n_groups_excluded).toBe(1);
    expect(summary.groups!.n_unseated).toEqual({ released: 2 });
    expect(warnings.filter((w) => w.startsWith('groups:'))).toEqual([
      `groups: ${expected.n_quality_from_members} scored group(s) without the judge's score of the shared document in groups.csv: their Q is the median of their members' judged quality`,
    ]);
    const all = (await analyse(FIXTURE, { includeSimulated: true })).summary;
    expect(all.n_simulated_excluded).toBe(0);
    expect(all.groups!.n_groups).toBe(expected.n_groups + 1);
    expect(all.groups!.groups.g18!.condition).toBe('silent');
    // one more group in roadmap: its z values move
    expect(all.groups!.groups.g09!.pz).not.toBe(expected.groups.g09!.pz);
  });

  it('writes group_productivity.csv, one row per group with the summary\'s values', async () => {
    const out = tmp();
    const written = await runAnalysis(FIXTURE, out, options);
    expect(written.map((p) => p.split('/').at(-1))).toContain('group_productivity.csv');
    const rows = readFileSync(join(out, 'group_productivity.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    expect(rows[0]).toEqual(['group_id', 'task', 'condition', 'size', 'people_tokens', 'agent_tokens', 'edits', 'quality', 'n_judged_members', 'cost', 'z_quality', 'z_cost', 'pz', 'quadrant']);
    expect(rows.slice(1).map((r) => r[0])).toEqual(Object.keys(expected.groups).sort());
    for (const r of rows.slice(1)) {
      const e = expected.groups[r[0]!]!;
      expect(Number(r[9])).toBe(e.cost);
      if (e.pz === undefined) expect(r[12]).toBe('');
      else close(Number(r[12]), e.pz);
    }
    // a single-person dataset gets no such file
    const solo = tmp();
    expect((await runAnalysis(REFERENCE, solo, options)).some((p) => p.endsWith('group_productivity.csv'))).toBe(false);
  });

  it('writes a "Groups" section in the report, with the simulated sessions it left out', async () => {
    const { report } = await analyse(FIXTURE);
    expect(report).toContain('<h2>Groups</h2>');
    expect(report).toContain('17 groups (50 people), 16 with a quality score');
    expect(report).toContain('3 simulated session(s) left out');
    expect(report).toContain('Productivity per group');
    expect(report).toContain('<h3>Condition comparison (groups)</h3>');
  });

  it('reads a group dataset whose sessions.csv lacks the count columns (room rows without a session are skipped, not an error)', async () => {
    const dir = tmp();
    cpSync(FIXTURE, dir, { recursive: true });
    const lines = readFileSync(join(dir, 'sessions.csv'), 'utf8').trim().split('\n');
    const drop = new Set([5, 6, 7, 8]); // user_tokens … agent_turns
    writeFileSync(join(dir, 'sessions.csv'), lines.map((l) => l.split(',').filter((_, i) => !drop.has(i)).join(',')).join('\n') + '\n');
    const { summary } = await analyse(dir);
    expect(summary.counts_source).toBe('messages.jsonl');
    expect(summary.groups!.groups.g01!.people_tokens).toBe(expected.groups.g01!.people_tokens);
  });

  it('warns of a task with one scored group, whose z and Pz are null, and leaves the other task\'s values as they were', async () => {
    const dir = tmp();
    cpSync(FIXTURE, dir, { recursive: true });
    editCsv(join(dir, 'groups.csv'), (cells) => {
      if (cells[2] === 'roadmap' && cells[0] !== 'g09') cells[GROUP_QUALITY] = '';
    });
    const lines = readFileSync(join(dir, 'sessions.csv'), 'utf8').trim().split('\n');
    const edited = lines.map((l, i) => {
      const cells = l.split(',');
      if (i > 0 && cells[1] === 'roadmap' && cells[11] !== 'g09') cells[9] = '';
      return cells.join(',');
    });
    writeFileSync(join(dir, 'sessions.csv'), `${edited.join('\n')}\n`);
    const { summary, warnings } = await analyse(dir);
    expect(warnings).toContain('groups: task(s) with one scored group: roadmap — its z, Pz and quadrant are null');
    expect([summary.groups!.groups.g09!.pz, summary.groups!.groups.g09!.quadrant]).toEqual([null, null]);
    expect(summary.groups!.groups.g10!.quality).toBeNull();
    close(summary.groups!.groups.g01!.pz, expected.groups.g01!.pz!);
  });

  it('takes Q from the members\' median in an export whose groups.csv has no quality column, and adds no field or warning for it', async () => {
    const dir = tmp();
    cpSync(FIXTURE, dir, { recursive: true });
    editCsv(join(dir, 'groups.csv'), (cells) => {
      cells.splice(GROUP_QUALITY, 1);
    });
    const { summary, warnings, report } = await analyse(dir);
    const g = summary.groups!;
    expect('n_quality_from_members' in g).toBe(false);
    expect(Object.keys(g)).toEqual(['unit', 'lambda', 'cost_definition', 'n_groups', 'n_scored', 'n_unscored', 'n_people', 'n_unseated', 'n_groups_excluded', 'groups', 'tasks', 'conditions', 'warnings']);
    for (const [id, e] of Object.entries(expected.groups)) expect(g.groups[id]!.quality).toBe(e.members_median);
    // g01's judge score (3) differs from its members' median (1): the column moved it
    expect(expected.groups.g01!.quality).not.toBe(expected.groups.g01!.members_median);
    expect(warnings.filter((w) => w.startsWith('groups:'))).toEqual([]);
    expect(report).toContain('Q = the median of the members&#39; judged quality of the shared document');
  });

  it('says in the report where each group\'s Q came from', async () => {
    const { report } = await analyse(FIXTURE);
    expect(report).toContain(
      `Q = the judge&#39;s score of the group&#39;s shared document (median of its samples); groups without one take the median of their members&#39; judged quality (${expected.n_quality_from_members} groups)`,
    );
  });

  it('names file, line and column of a bad room row or groups.csv cell', async () => {
    const bad = (file: string, edit: (text: string) => string) => {
      const dir = tmp();
      cpSync(FIXTURE, dir, { recursive: true });
      writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
      return runAnalysis(dir, tmp(), options);
    };
    await expect(bad('messages.jsonl', (t) => t.replace('"session_id": "g01m1"', '"session_id": null'))).rejects.toThrow('messages.jsonl, line 1, column "session_id": a participant\'s room message needs the sender\'s session_id');
    await expect(bad('messages.jsonl', (t) => t.replace('"sender_kind": "participant"', '"sender_kind": "robot"'))).rejects.toThrow(/messages\.jsonl, line 1, column "sender_kind"/);
    await expect(bad('messages.jsonl', (t) => t.replace('"session_id": "g01m1"', '"session_id": "nobody"'))).rejects.toThrow('messages.jsonl, line 1, column "session_id": session id "nobody" is not in sessions.csv');
    await expect(bad('groups.csv', (t) => t.replace(/,3,3,ended/, ',three,3,ended'))).rejects.toThrow(/groups\.csv, line 2, column "size_at_start": not a whole number/);
    await expect(bad('groups.csv', (t) => t.replace(/,Facilitator,3\.0\n/, ',Facilitator,high\n'))).rejects.toThrow('groups.csv, line 2, column "quality": not a number (got "high")');
    await expect(bad('sessions.csv', (t) => t.replace(/,grouped,(\d+),\d+,false/, ',grouped,$1,-2,false'))).rejects.toThrow(/sessions\.csv, line 2, column "group_edits"/);
  });

  it('adds nothing to the summary of a single-person dataset (the reference fixture keeps its keys)', async () => {
    const { summary } = await analyse(REFERENCE);
    expect('groups' in summary).toBe(false);
    expect('n_simulated_excluded' in summary).toBe(false);
    expect(Object.keys(summary)).toEqual([
      'n_sessions', 'n_scored', 'n_unscored', 'n_pilot_excluded', 'n_unconsented_excluded', 'lambda', 'cost_definition', 'counts_source', 'sessions', 'tasks',
      'sensitivity_lambda', 'cost_definitions', 'quartiles', 'features', 'feature_counts', 'features_opening', 'likert_correlations', 'bootstrap', 'conditions', 'warnings',
    ]);
  });

  it('takes --include-simulated on the command line', () => {
    const args = parseAnalyzeArgs([FIXTURE, '--include-simulated']);
    expect(args.kind === 'run' && args.options.includeSimulated).toBe(true);
    const plain = parseAnalyzeArgs([FIXTURE]);
    expect(plain.kind === 'run' && plain.options.includeSimulated).toBe(false);
  });
});
