import { z } from 'zod';

/** Identifier used in study, task, condition, field, survey and item ids: safe in URLs, file names and CSV headers. */
export const Slug = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1–64 chars of a-z, 0-9, "_" or "-", starting with a letter or digit');
export type Slug = z.infer<typeof Slug>;

/** Client time stamp in ms since the epoch (UTC), as the browser saw it. */
export const ClientTs = z.number().int().nonnegative();
export type ClientTs = z.infer<typeof ClientTs>;
