import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MAX_UPLOAD_BYTES, UPLOAD_TYPES, type UploadResponse } from '../../common/http';
import { ServiceError, type ServiceContext } from './serviceContext';
import { requireActive } from './lifecycle';
import { uploadView } from './sessionState';
import { sniffImageType } from '../../lib/imageType';

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * Uploads kept per session. Every upload is stored (drafts may point at any of them), so without a cap
 * one participant could fill the server's disk 5 MB at a time. Generous for people replacing a plot.
 */
export const MAX_UPLOADS_PER_SESSION = 50;
export const MAX_UPLOAD_BYTES_PER_SESSION = 100 * 1024 * 1024;

/** Stores an uploaded image for an image field: file under <dataDir>/uploads/<session>/, row + event in one transaction. */
export async function storeUpload(
  ctx: ServiceContext,
  sessionId: string,
  upload: { fieldId: string; fileName: string | undefined; contentType: string; bytes: Buffer },
): Promise<UploadResponse> {
  const s = await requireActive(ctx, sessionId, ['workspace']);
  const field = s.task.fields.find((f) => f.id === upload.fieldId);
  if (!field) throw new ServiceError('invalid_input', `unknown artifact field "${upload.fieldId}"`, 'field');
  if (field.kind !== 'image') throw new ServiceError('invalid_input', `"${field.label}" is not an image field`, 'field');
  if (upload.bytes.length === 0) throw new ServiceError('invalid_input', 'the upload is empty', 'body');
  if (upload.bytes.length > MAX_UPLOAD_BYTES)
    throw new ServiceError('too_large', `the image is too large (at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MB)`, 'body');
  const declared = (upload.contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (!(UPLOAD_TYPES as readonly string[]).includes(declared))
    throw new ServiceError('invalid_input', `images must be one of ${UPLOAD_TYPES.join(', ')}`, 'content-type');
  const actual = sniffImageType(upload.bytes);
  if (actual !== declared) throw new ServiceError('invalid_input', `the file is not a valid ${declared} image`, 'body');
  const existing = await ctx.store.uploads.listForSession(sessionId);
  if (existing.length >= MAX_UPLOADS_PER_SESSION)
    throw new ServiceError('too_large', `you can upload at most ${MAX_UPLOADS_PER_SESSION} images in this session`, 'body');
  if (existing.reduce((sum, u) => sum + u.bytes, 0) + upload.bytes.length > MAX_UPLOAD_BYTES_PER_SESSION)
    throw new ServiceError('too_large', `this session's images may take at most ${MAX_UPLOAD_BYTES_PER_SESSION / 1024 / 1024} MB in all`, 'body');

  const id = crypto.randomUUID();
  const ext = EXTENSIONS[actual]!;
  const rel = path.join('uploads', sessionId, `${id}.${ext}`);
  const abs = path.join(ctx.dataDir, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, upload.bytes);
  const sha256 = crypto.createHash('sha256').update(upload.bytes).digest('hex');
  const fileName = sanitizeFileName(upload.fileName) ?? `${upload.fieldId}.${ext}`;
  const now = ctx.now();
  try {
    const row = await ctx.store.transaction(async (tx) => {
      const seq = await tx.events.append(
        sessionId,
        'upload.stored',
        { uploadId: id, fieldId: upload.fieldId, fileName, contentType: actual, bytes: upload.bytes.length, sha256 },
        now,
        null,
      );
      const r = { id, sessionId, fieldId: upload.fieldId, fileName, contentType: actual, bytes: upload.bytes.length, sha256, storagePath: rel, eventSeq: seq, createdAt: now };
      await tx.uploads.insert(r);
      return r;
    });
    const v = uploadView(row);
    return { uploadId: v.id, fieldId: v.fieldId, fileName: v.fileName, contentType: v.contentType, bytes: v.bytes, url: v.url };
  } catch (err) {
    fs.rmSync(abs, { force: true });
    throw err;
  }
}

/** Path on disk of one of this session's uploads; not_found for another session's upload. */
export async function uploadFile(ctx: ServiceContext, sessionId: string, uploadId: string): Promise<{ abs: string; contentType: string; fileName: string }> {
  const row = await ctx.store.uploads.get(uploadId);
  if (!row || row.sessionId !== sessionId) throw new ServiceError('not_found', 'no such upload in this session');
  return { abs: path.join(ctx.dataDir, row.storagePath), contentType: row.contentType, fileName: row.fileName };
}

/**
 * A display name safe in headers, HTML and file systems: the last path segment (either slash), only
 * [A-Za-z0-9._-], no ".." and no leading dot. It is never used as a path on disk (files get the upload id).
 */
export function sanitizeFileName(name: string | undefined): string | undefined {
  if (!name) return undefined;
  const last = name.split(/[\\/]/).pop() ?? '';
  const base = last
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.]+/, '')
    .slice(0, 100);
  return base.length > 0 ? base : undefined;
}
