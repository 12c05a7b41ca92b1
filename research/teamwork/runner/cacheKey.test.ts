import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../common/rubric';
import { modelCallKey, type ModelCall } from '../../judge/cachedModelClient';

const provider = { name: 'openai-compatible', url: 'http://127.0.0.1:1/v1' };
const call: ModelCall = { purpose: 'judge', model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0.7, maxTokens: 400, seed: 0, sampleIndex: 2 };

describe('reply cache keys with tools', () => {
  it('keys of calls without tools are exactly what they were (existing judge caches stay valid)', () => {
    const before = { purpose: 'judge', provider: provider.name, providerUrl: provider.url, model: 'm', messages: call.messages, temperature: 0.7, maxTokens: 400, seed: 0 };
    expect(modelCallKey(provider, call)).toBe(`${createHash('sha256').update(canonicalJson(before)).digest('hex')}:2`);
  });

  it('tools and tool choice enter the key when present', () => {
    const tool = { type: 'function' as const, function: { name: 'run_tests' } };
    const withTools = modelCallKey(provider, { ...call, tools: [tool] });
    expect(withTools).not.toBe(modelCallKey(provider, call));
    expect(modelCallKey(provider, { ...call, tools: [tool], toolChoice: 'none' })).not.toBe(withTools);
  });
});
