import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../lib/storage';

/**
 * Writes synthetic sessions through the Store's own repositories (no SQL here), for export tests and
 * the memory check. Every session gets an identity, a few messages, events, an artifact and survey answers.
 */

export interface SeedSession {
  platformUserId?: string | null;
  urlParams?: Record<string, string>;
  isPilot?: boolean;
  taskId?: string;
  conditionId?: string;
  messages?: { role: 'user' | 'assistant'; text: string }[];
  artifact?: Record<string, string> | null;
  /** An image upload for field "figure" (bytes written under <dataDir>/uploads/). */
  image?: { fileName: string; bytes: Buffer } | null;
  likert?: Record<string, number>;
  status?: 'active' | 'completed' | 'declined' | 'timed_out';
  startedAt?: number;
  /** false: a visit that never answered the consent (only session.created; no messages, artifact or answers). */
  consented?: boolean;
}

export async function seedStudyRow(store: Store, studyId: string, status: 'draft' | 'pilot' | 'live' | 'closed' = 'live', title = 'Seeded study'): Promise<void> {
  await store.studies.upsertLoaded(studyId, title, 'seed-hash', status, Date.UTC(2026, 10, 1));
  await store.studies.setStatus(studyId, status, Date.UTC(2026, 10, 1));
}

/** Inserts one session with everything it carries; returns the server session id. */
export async function seedSession(store: Store, dataDir: string, studyId: string, s: SeedSession = {}): Promise<string> {
  const id = randomUUID();
  const t0 = s.startedAt ?? Date.UTC(2026, 10, 2, 9, 0, 0);
  let t = t0;
  const tick = () => (t += 1000);
  await store.transaction(async (tx) => {
    await tx.sessions.insert({
      id,
      studyId,
      taskId: s.taskId ?? 'travel',
      conditionId: s.conditionId ?? 'baseline',
      isPilot: s.isPilot ?? false,
      createdAt: t0,
    });
    const params = s.urlParams ?? (s.platformUserId ? { PROLIFIC_PID: s.platformUserId, STUDY_ID: 'platformstudy01', SESSION_ID: `ps_${id.slice(0, 8)}` } : {});
    await tx.identities.insert({
      sessionId: id,
      studyId,
      platform: s.platformUserId ? 'prolific' : 'anonymous',
      platformUserId: s.platformUserId ?? null,
      platformStudyId: params.STUDY_ID ?? null,
      platformSessionId: params.SESSION_ID ?? null,
      urlParams: params,
      createdAt: t0,
    });
    await tx.events.append(id, 'session.created', { studyId, taskId: s.taskId ?? 'travel', conditionId: s.conditionId ?? 'baseline', isPilot: !!s.isPilot }, t0, null);
    if (s.consented === false) return;
    await tx.events.append(id, 'consent', { accept: true, version: 'v1' }, tick(), t - 20);
    await tx.sessions.update(id, { step: 'workspace', consentVersion: 'v1', consentedAt: t }, t);
    let lastUser: string | null = null;
    for (const m of s.messages ?? []) {
      const at = tick();
      const messageId = randomUUID();
      const seq = await tx.events.append(id, m.role === 'user' ? 'chat.message' : 'chat.reply', { messageId, text: m.text }, at, m.role === 'user' ? at - 15 : null);
      await tx.messages.insert({
        id: messageId,
        sessionId: id,
        eventSeq: seq,
        role: m.role,
        text: m.text,
        clientId: m.role === 'user' ? `client_${messageId.slice(0, 12)}` : null,
        replyTo: m.role === 'assistant' ? lastUser : null,
        status: 'complete',
        tokens: Math.max(1, Math.round(m.text.length / 4)),
        provider: m.role === 'assistant' ? 'offline' : null,
        providerUrl: null,
        model: m.role === 'assistant' ? 'offline-demo-1' : null,
        requestedModel: m.role === 'assistant' ? 'offline-demo-1' : null,
        params: m.role === 'assistant' ? { temperature: 0.7, max_tokens: 512 } : null,
        usage: null,
        ttftMs: m.role === 'assistant' ? 120 : null,
        durationMs: m.role === 'assistant' ? 900 : null,
        finishReason: m.role === 'assistant' ? 'stop' : null,
        interrupted: false,
        attempts: m.role === 'assistant' ? 1 : null,
        error: null,
        createdAt: at,
      });
      if (m.role === 'user') lastUser = messageId;
    }
    const fields: Record<string, string> = { ...(s.artifact ?? {}) };
    if (s.image) {
      const uploadId = randomUUID();
      const rel = join('uploads', id, uploadId);
      mkdirSync(join(dataDir, 'uploads', id), { recursive: true });
      writeFileSync(join(dataDir, rel), s.image.bytes);
      const seq = await tx.events.append(id, 'upload', { uploadId, fieldId: 'figure', bytes: s.image.bytes.length }, tick(), null);
      await tx.uploads.insert({
        id: uploadId,
        sessionId: id,
        fieldId: 'figure',
        fileName: s.image.fileName,
        contentType: 'image/png',
        bytes: s.image.bytes.length,
        sha256: createHash('sha256').update(s.image.bytes).digest('hex'),
        storagePath: rel,
        eventSeq: seq,
        createdAt: t,
      });
      fields.figure = uploadId;
    }
    if (s.artifact !== null && (s.artifact || s.image)) {
      const at = tick();
      const seq = await tx.events.append(id, 'artifact.submitted', { fields }, at, at - 10);
      await tx.artifacts.insertVersion(id, fields, seq, at);
      await tx.sessions.update(id, { step: 'survey', submittedAt: at }, at);
    }
    if (s.likert) {
      const at = tick();
      const seq = await tx.events.append(id, 'survey.submitted', { answers: s.likert }, at, at - 10);
      await tx.surveyAnswers.insert(
        Object.entries(s.likert).map(([itemId, value]) => ({ sessionId: id, surveyId: 'post', itemId, itemKind: 'likert', valueNum: value, valueText: null, eventSeq: seq, createdAt: at })),
      );
    }
    const status = s.status ?? (s.likert ? 'completed' : 'active');
    if (status !== 'active') await tx.sessions.update(id, { status, step: 'complete', endedAt: tick() }, t);
  });
  return id;
}
