/**
 * Token counts that define interaction cost (C = user_tokens + λ·agent_tokens): always the o200k_base
 * encoding (GPT-4o family), whatever model answered, so counts are comparable across conditions and
 * providers. The server stores them per message and the analysis recomputes them from messages.jsonl
 * with this same function, so the two can never disagree. Special-token text such as "<|endoftext|>"
 * typed by a participant is counted as ordinary text, never rejected.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const NO_SPECIAL_TOKENS = { disallowedSpecial: new Set<string>() };

/** Name of the tokenizer, for the record (dataset codebook, manifests). */
export const TOKENIZER = 'o200k_base';

/** Number of o200k_base tokens in `text` (0 for the empty string). */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return encode(text, NO_SPECIAL_TOKENS).length;
}

/** The o200k_base token ids of `text` (special-token text encoded as ordinary text). */
export function encodeTokens(text: string): number[] {
  return encode(text, NO_SPECIAL_TOKENS);
}
