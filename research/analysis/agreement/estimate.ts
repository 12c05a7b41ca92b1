/**
 * A statistic that may be undefined for the data at hand. Undefined values are `null` with a
 * human-readable reason (e.g. "chance agreement is 1"), never NaN, so that JSON output stays valid
 * and readers learn why a number is missing.
 */
export type Estimate = { value: number; reason?: undefined } | { value: null; reason: string };

export function defined(value: number): Estimate {
  return { value };
}

export function undefinedBecause(reason: string): Estimate {
  return { value: null, reason };
}
