import { z } from 'zod';
import { INTEGRITY_FLAGS } from './integrityFlags';

/** The dashboard's view of a session's integrity telemetry (server/admin/sessionDetail.ts → client/admin/IntegritySection.tsx). */
export const IntegrityView = z.object({
  batches: z.number().int(),
  pasteCount: z.number().int(),
  pastedChars: z.number().int(),
  pastedShare: z.number().nullable(),
  artifactPastedShare: z.number().nullable(),
  finalChars: z.number().int(),
  typedChars: z.number().int(),
  typedRatio: z.number().nullable(),
  keyIntervalMedianMs: z.number().nullable(),
  keyIntervalMeanMs: z.number().nullable(),
  keyIntervalSdMs: z.number().nullable(),
  awayCount: z.number().int(),
  awayS: z.number(),
  device: z.string(),
  browser: z.string(),
  /** The raised flags. */
  flags: z.array(z.enum(INTEGRITY_FLAGS)),
});
export type IntegrityView = z.infer<typeof IntegrityView>;
