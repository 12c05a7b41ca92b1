/**
 * The `images` column of `judgements` (migration 012), as both engines store it: NULL without a list
 * (describe mode), else the JSON array of {field, mediaType, bytes, sha256}. Validated on read.
 */
import { z } from 'zod';
import type { AttachedImage } from '../contract/judging';

/** One entry of the `images` column: what the judge recorded about an attached image (never its bytes). */
const AttachedImageSchema = z.strictObject({
  field: z.string().min(1),
  mediaType: z.string().min(1),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 is 64 lowercase hex digits'),
}) satisfies z.ZodType<AttachedImage>;
const AttachedImagesSchema = z.array(AttachedImageSchema);

/**
 * The `images` column's text for a sample: NULL without a list (describe mode), else the JSON array.
 * Only the four audit fields are kept, so an image loaded for a call (which also holds its base64
 * bytes) can never put the bytes in the database.
 */
export function imagesColumn(images: readonly AttachedImage[] | undefined): string | null {
  if (images === undefined) return null;
  return JSON.stringify(images.map(({ field, mediaType, bytes, sha256 }): AttachedImage => ({ field, mediaType, bytes, sha256 })));
}

/**
 * Reads the `images` column (migration 012); `where` names the row in the error. Throws on text that
 * is not a JSON array of {field, mediaType, bytes, sha256}, rather than handing on a malformed record.
 */
export function parseImagesColumn(text: string, where: string): AttachedImage[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`judgements.images of ${where} is not JSON: ${(err as Error).message}`);
  }
  const parsed = AttachedImagesSchema.safeParse(json);
  if (!parsed.success) throw new Error(`judgements.images of ${where} is not a list of {field, mediaType, bytes, sha256}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
