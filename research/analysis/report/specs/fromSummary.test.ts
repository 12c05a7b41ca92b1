import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { compile } from 'vega-lite';
import { loadDataset } from '../../input/dataset';
import { analyzeDataset, DEFAULT_OPTIONS } from '../../summary';
import { specsFromSummary } from './fromSummary';

const fixture = fileURLToPath(new URL('../../../../tests/fixtures/analysis-reference/', import.meta.url));

describe('specsFromSummary', () => {
  const summary = analyzeDataset(loadDataset(fixture), { ...DEFAULT_OPTIONS, bootstrapReplicates: 0 }).summary;
  // a dashboard gets summary.json over the wire: use the JSON round trip, not the in-memory object
  const specs = specsFromSummary(JSON.parse(JSON.stringify(summary)), 100);

  it('builds every plot and each compiles to vega', () => {
    expect(Object.keys(specs).sort()).toEqual(['conditions', 'costByQuality', 'costDefinitions', 'fig4', 'lambdaSensitivity', 'probingByQuartile', 'quadrants']);
    for (const spec of Object.values(specs)) expect(() => compile(spec)).not.toThrow();
  });
  it('thins per-session plots and carries ±1 SEM from the summary', () => {
    const points = (specs.quadrants!.data as { values: unknown[] }).values;
    expect(points).toHaveLength(75); // 150 scored sessions, every 2nd
    const bars = (specs.probingByQuartile!.data as { values: Array<{ speaker: string; quartile: string; low: number; high: number; mean: number }> }).values;
    const agentTop = bars.find((b) => b.speaker === 'agent' && b.quartile === 'top')!;
    expect(agentTop.mean).toBe(summary.features['agent:probing']!.top_mean);
    expect(agentTop.high - agentTop.mean).toBeCloseTo(summary.features['agent:probing']!.top_sem!, 15);
  });
});
