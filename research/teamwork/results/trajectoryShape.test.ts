import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countsFromMessages } from '../../analysis/input/messagesFile';
import { countTokens } from '../../../common/tokens';
import { runSuite } from '../runner/runSuite';
import { loadTaskDir } from '../tasks/loadTasks';

describe("a run's messages in the study trajectory shape", () => {
  it('append to a messages.jsonl that the analysis reader counts', async () => {
    const tasks = loadTaskDir(new URL('../../../teamwork/tasks/suite', import.meta.url).pathname).filter((t) => t.id === 'info-flood-route');
    const dir = mkdtempSync(join(tmpdir(), 'tw-shape-'));
    const { runs } = await runSuite({ tasks, model: 'offline-steady', seeds: 1, concurrency: 1, outDir: dir, partner: 'offline-partner', referee: 'offline-judge', second: 'offline-judge', temperature: 0.7, maxTokens: 300, env: {} });
    const test = runs.find((r) => r.arm === 'test')!;
    writeFileSync(join(dir, 'messages.jsonl'), test.messages.map((m) => JSON.stringify(m)).join('\n'));
    const counts = countsFromMessages(join(dir, 'messages.jsonl'), new Map([[test.run_id!, 0]]), 1);
    const model = test.messages.filter((m) => m.role === 'assistant');
    expect(counts.agent_turns[0]).toBe(model.length);
    expect(counts.agent_tokens[0]).toBe(model.reduce((n, m) => n + countTokens(m.text), 0));
    expect(counts.user_turns[0]).toBe(test.messages.filter((m) => m.role === 'user').length); // teammates speak as "user" to the model
  });
});
