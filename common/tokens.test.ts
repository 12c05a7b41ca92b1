import { describe, expect, it } from 'vitest';
import { countTokens, encodeTokens, TOKENIZER } from './tokens';

describe('countTokens (o200k_base)', () => {
  it('matches known o200k_base counts', () => {
    expect(TOKENIZER).toBe('o200k_base');
    expect(countTokens('')).toBe(0);
    // Known o200k_base ids: "hello world" → [24912, 2375] (tiktoken o200k_base).
    expect(encodeTokens('hello world')).toEqual([24912, 2375]);
    expect(countTokens('hello world')).toBe(2);
  });

  it('counts special-token text as ordinary text instead of throwing', () => {
    expect(() => countTokens('<|endoftext|>')).not.toThrow();
    // As plain text "<|endoftext|>" is several tokens, never the single special token 199999.
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
    expect(encodeTokens('<|endoftext|>')).not.toContain(199999);
  });

  it('grows with text length and keeps multi-byte text countable', () => {
    expect(countTokens('héllo 🎉 日本語')).toBeGreaterThan(2);
    expect(countTokens('word '.repeat(100).trim())).toBe(100);
  });
});
