/**
 * Opt-in vision judging (`judge --images attach`): the uploaded image of each image field is sent to
 * the judge model as an OpenAI image content part next to the text prompt. The default, `describe`,
 * keeps the text-only judge (an image field is shown as a note that an image was uploaded), so models
 * without vision keep working.
 *
 * Each image is read from disk when its call is built (never held for the whole run) and checked: the
 * file exists, holds at most MAX_UPLOAD_BYTES, is PNG, JPEG, WebP or GIF by its bytes, and has the sha256
 * recorded when it was uploaded (uploads table) or exported (manifest.json). A failed check is an
 * ImageAttachError: that session is not judged, and says why. Images are not redacted.
 *
 * Keys, cached requests and audit records describe an image by field, media type, size and sha256,
 * never by its bytes (auditableMessages).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { JudgeImageMode } from '../../common/admin';
import { MAX_UPLOAD_BYTES, UPLOAD_TYPES } from '../../common/http';
import type { ChatMessage, ContentPart, ImageContentPart } from '../../lib/llm/provider';
import { sniffImageType } from '../../lib/imageType';
import type { AttachedImage } from '../../lib/storage';

/** describe | attach: one list for the CLI flag and the dashboard's request (common/admin.ts). */
export const IMAGE_MODES = JudgeImageMode.options;
export type ImageMode = JudgeImageMode;
/** OpenAI's `image_url.detail`: `low` costs a fixed small number of tokens per image. */
export const IMAGE_DETAILS = ['auto', 'low', 'high'] as const;
export type ImageDetail = (typeof IMAGE_DETAILS)[number];

/** Same cap as a participant upload (5 MB). */
export const MAX_JUDGE_IMAGE_BYTES = MAX_UPLOAD_BYTES;
export const JUDGE_IMAGE_TYPES: readonly string[] = UPLOAD_TYPES;

/** Where one image field's upload is, as found in the study database or a dataset directory (nothing read yet). */
export interface ImageSource {
  fieldId: string;
  /** The field's label from the study definition, else its id. */
  label: string;
  /** Absolute path of the image file; null when there is none (`missing` says why). */
  file: string | null;
  /** How the image is named in error messages: a dataset-relative path or the upload id. */
  shownAs: string;
  missing?: string;
  /** sha256 recorded when the image was uploaded or exported, and where, when known. */
  recorded?: { sha256: string; where: string };
}

export type { AttachedImage };

export interface LoadedImage extends AttachedImage {
  label: string;
  base64: string;
}

export class ImageAttachError extends Error {
  constructor(source: ImageSource, reason: string) {
    super(`field "${source.fieldId}" (${source.label}): ${reason}`);
    this.name = 'ImageAttachError';
  }
}

const sha256Of = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Reads and checks one image; throws ImageAttachError naming the field and the file on any problem. */
export function loadImage(source: ImageSource): LoadedImage {
  if (source.file === null) throw new ImageAttachError(source, `no image file for ${source.shownAs}: ${source.missing ?? 'none is recorded'}`);
  let size: number;
  try {
    const stat = statSync(source.file);
    if (!stat.isFile()) throw new ImageAttachError(source, `${source.shownAs} is not a file`);
    size = stat.size;
  } catch (err) {
    if (err instanceof ImageAttachError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ImageAttachError(source, code === 'ENOENT' ? `image file not found: ${source.shownAs}` : `cannot read ${source.shownAs} (${code ?? (err as Error).message})`);
  }
  if (size > MAX_JUDGE_IMAGE_BYTES) {
    throw new ImageAttachError(source, `${source.shownAs} is too large to attach: ${size} bytes, at most ${MAX_JUDGE_IMAGE_BYTES} (${MAX_JUDGE_IMAGE_BYTES / 1024 / 1024} MB)`);
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(source.file);
  } catch (err) {
    throw new ImageAttachError(source, `cannot read ${source.shownAs} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  if (bytes.length === 0) throw new ImageAttachError(source, `${source.shownAs} is empty`);
  const mediaType = sniffImageType(bytes);
  if (mediaType === null || !JUDGE_IMAGE_TYPES.includes(mediaType)) {
    throw new ImageAttachError(source, `${source.shownAs} is not an accepted image (accepted: ${JUDGE_IMAGE_TYPES.join(', ')})`);
  }
  const sha256 = sha256Of(bytes);
  if (source.recorded && source.recorded.sha256 !== sha256) {
    throw new ImageAttachError(source, `${source.shownAs} has sha256 ${sha256}, not the ${source.recorded.sha256} recorded in ${source.recorded.where}: the file changed after it was recorded`);
  }
  return { field: source.fieldId, label: source.label, mediaType, bytes: bytes.length, sha256, base64: bytes.toString('base64') };
}

export const auditOf = (image: LoadedImage): AttachedImage => ({ field: image.field, mediaType: image.mediaType, bytes: image.bytes, sha256: image.sha256 });

export function imagePart(image: LoadedImage, detail?: ImageDetail): ImageContentPart {
  return { type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.base64}`, ...(detail ? { detail } : {}) } };
}

const DATA_URL = /^data:([^;,]+);base64,/;

/** An image part as keys, cached requests and audit records hold it: media type, size and sha256 of the bytes. */
function auditablePart(part: ContentPart): unknown {
  if (part.type !== 'image_url') return part;
  const { url, detail } = part.image_url;
  const m = DATA_URL.exec(url);
  if (!m) return { type: 'image_url', url, ...(detail ? { detail } : {}) };
  const bytes = Buffer.from(url.slice(m[0].length), 'base64');
  return { type: 'image', mediaType: m[1], bytes: bytes.length, sha256: sha256Of(bytes), ...(detail ? { detail } : {}) };
}

/**
 * Messages with every inline image replaced by its description (no base64). Text-only messages are
 * returned unchanged, so keys of text-only calls are what they were before images existed.
 */
export function auditableMessages(messages: readonly ChatMessage[]): unknown[] {
  return messages.map((m) => (typeof m.content === 'string' ? m : { role: m.role, content: m.content.map(auditablePart) }));
}
