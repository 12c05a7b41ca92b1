/**
 * A price file (JSON or YAML): dollars per million input and output tokens, per model name.
 *   { "gpt-4o-mini": { "input_per_mtok": 0.15, "output_per_mtok": 0.6 } }
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';

export const PriceFile = z.record(z.string().min(1), z.object({ input_per_mtok: z.number().min(0), output_per_mtok: z.number().min(0) }).strict());
export type PriceFile = z.infer<typeof PriceFile>;

export class PriceFileError extends Error {}

export function loadPrices(path: string): PriceFile {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PriceFileError(`${path}: ${(error as Error).message}`);
  }
  const parsed = PriceFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PriceFileError(`${path}: ${issue.path.map(String).join('.') || 'file'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Dollars for these tokens at the model's price; null when the file has no price for it. */
export function dollars(prices: PriceFile | undefined, model: string, tokens: { input: number; output: number }): number | null {
  const p = prices?.[model];
  return p ? (tokens.input * p.input_per_mtok + tokens.output * p.output_per_mtok) / 1e6 : null;
}
