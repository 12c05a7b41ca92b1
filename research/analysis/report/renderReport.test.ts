import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../summary';
import { renderReport } from './renderReport';
import { escapeHtml } from '../../../common/escapeHtml';

const EVIL = '<img src=x onerror=alert(1)>';

describe('renderReport', () => {
  it('escapes every text that comes from the data and stays self-contained', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tandem-report-'));
    const rows = Array.from({ length: 12 }, (_, i) =>
      [`s${i}`, i % 2 ? `"${EVIL}"` : 'plain', 1 + (i % 5), 10 * (i + 1), 50 * ((i * 7) % 11 + 1), 3, 3, 1 + (i % 4)].join(','),
    );
    writeFileSync(join(dir, 'sessions.csv'), `session_id,task,quality,user_tokens,agent_tokens,user_turns,agent_turns,likert_${'x'}\n${rows.join('\n')}\n`);
    writeFileSync(
      join(dir, 'annotations.csv'),
      'session_id,turn,speaker,friction,grounding\n' + rows.map((_, i) => `s${i},0,agent,probing,display\ns${i},1,user,none,repair`).join('\n') + '\n',
    );
    const data = loadDataset(dir);
    const html = await renderReport(data, analyzeDataset(data, { ...DEFAULT_OPTIONS, bootstrapReplicates: 50 }));
    expect(html).not.toContain(EVIL);
    expect(html).toContain(escapeHtml(EVIL));
    expect(html).not.toMatch(/<script|<link|<iframe|src=["']https?:|href=["']https?:/i);
    expect(html.match(/<svg/g)?.length).toBe(5); // quadrants, cost/quality, λ heatmap, cost-definition heatmap, Fig 4
    expect(html).toContain('Fig 4. Probing by Pz quartile');
    expect(html).toContain('per-session count');
    expect(html).toContain('opening 30% rate');
  });

  it('escapeHtml covers the five special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
