import type { z } from 'zod';
import { Envelope } from '../../common/envelope';
import { JoinedSession, JoinResponse, StudyPublic, UploadResponse, type UrlParams } from '../../common/http';
import { RequestError } from '../socket/errors';
import { uploadWithProgress } from './artifact/uploadWithProgress';

/** The participant HTTP API (common/http.ts): every reply is an Envelope, checked against its schema. */

function unwrap<T extends z.ZodType>(schema: T, body: unknown, what: string): z.infer<T> {
  const parsed = Envelope(schema).safeParse(body);
  if (!parsed.success) throw new RequestError('internal', `Unexpected reply from the server (${what}).`);
  const reply = parsed.data as Envelope<z.infer<T>>;
  if (!reply.ok) throw new RequestError(reply.error.code, reply.error.message, reply.error.field);
  return reply.data;
}

async function getJson(url: string, init?: RequestInit): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new RequestError('disconnected', 'Could not reach the study server. Please check your connection and reload.');
  }
  try {
    return await response.json();
  } catch {
    throw new RequestError('internal', `The study server answered with HTTP ${response.status}.`);
  }
}

export async function joinStudy(studyId: string, params: UrlParams): Promise<JoinResponse> {
  const body = await getJson('/api/join', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ studyId, params }),
  });
  return unwrap(JoinResponse, body, 'join');
}

/** Reopens the session of the link's platform id with its resume code (rate-limited on the server). */
export async function resumeWithCode(studyId: string, params: UrlParams, code: string): Promise<JoinedSession> {
  const body = await getJson('/api/join/resume', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ studyId, params, code }),
  });
  return unwrap(JoinedSession, body, 'resume');
}

export async function fetchStudyPublic(studyId: string): Promise<StudyPublic> {
  return unwrap(StudyPublic, await getJson(`/api/studies/${encodeURIComponent(studyId)}/public`), 'study');
}

export async function uploadImage(
  token: string,
  fieldId: string,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<UploadResponse> {
  const query = new URLSearchParams({ field: fieldId, name: file.name.slice(0, 200) });
  try {
    const body = await uploadWithProgress(
      `/api/session/upload?${query}`,
      file,
      { authorization: `Bearer ${token}`, 'content-type': file.type },
      onProgress,
    );
    return unwrap(UploadResponse, body, 'upload');
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError('internal', error instanceof Error ? error.message : String(error));
  }
}
