import { z } from 'zod';

/** Zod schemas for single CSV cells (raw strings in, typed values out). */
export const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export const requiredText = z.string().trim().min(1, 'value is empty');

export const requiredNumber = z
  .string()
  .trim()
  .min(1, 'value is empty')
  .regex(NUMERIC, 'not a number')
  .transform(Number);

/** Empty cell → NaN (missing); otherwise a finite number. */
export const optionalNumber = z
  .string()
  .trim()
  .refine((s) => s === '' || NUMERIC.test(s), 'not a number')
  .transform((s) => (s === '' ? NaN : Number(s)));

export const nonNegativeCount = requiredNumber.refine((n) => n >= 0, 'must be ≥ 0');
