/**
 * Reads a study's groups for the judge: one piece of material per group with a shared document, judged once as the
 * group's artifact (docs/groups.md). The artifact is the document's final text per field (rebuilt from the group's
 * Yjs updates); the dialogue is the room (people as `user`, agents and a researcher speaking as one as `agent`,
 * platform notices left out; the prompt quotes its first message from a person, as it quotes a session's first).
 * Text is redacted as the exporter redacts it: a message with its sender's redactor, the document (written by
 * several people) with every member's in turn, so no member's identity strings reach the
 * model. `docVersion` is the last update seq the text was built from; `memberSessions` are the people whose data is
 * in the prompt (their withdrawal forgets the cached judge replies).
 */
import { groupDocument, type Store } from '../../lib/storage';
import { openStudyRedactor } from '../exports/studyRedactor';
import type { SessionMaterial, Utterance } from './sessionMaterial';
import type { StudyTaskDefinition } from './studySource';

export interface GroupMaterial {
  groupId: string;
  docVersion: number;
  memberSessions: string[];
  /** The judge's input, shaped as a session's (its `sessionId` is the group id). */
  material: SessionMaterial;
}

export async function readStudyGroups(store: Store, studyId: string, tasks: readonly StudyTaskDefinition[] = []): Promise<GroupMaterial[]> {
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const groups = await store.groups.listGroups(studyId);
  if (groups.length === 0) return [];
  const redactor = await openStudyRedactor(store, studyId);
  const out: GroupMaterial[] = [];
  for (const g of groups) {
    const updates = await store.groups.listDocUpdates(g.id);
    if (updates.length === 0) continue;
    const members = (await store.groups.listMembers(g.id)).filter((m) => m.kind === 'participant' && m.sessionId !== null).map((m) => m.sessionId!);
    const redactAll = (text: string) => members.reduce((t, id) => redactor.forSessionId(id).redact(t), redactor.redact(text));
    const utterances: Utterance[] = [];
    for (const m of await store.groups.listMessages(g.id)) {
      if (m.senderKind === 'system') continue;
      const text = m.sessionId === null ? redactor.redact(m.content) : redactor.forSessionId(m.sessionId).redact(m.content);
      if (text.trim() === '') continue;
      // The sender's display name (never a platform id) keeps who said what readable for the judge.
      utterances.push({ turn: utterances.length, speaker: m.senderKind === 'participant' ? 'user' : 'agent', text: `${m.senderName}: ${text}`, messageId: m.id });
    }
    const task = taskById.get(g.taskId);
    const fields = Object.fromEntries(groupDocument(updates).fields.map(({ field, text }) => [field, redactAll(text)]));
    const docVersion = updates[updates.length - 1]!.seq;
    out.push({
      groupId: g.id,
      docVersion,
      memberSessions: members,
      material: {
        sessionId: g.id,
        task: g.taskId,
        rubricId: task?.rubric ?? null,
        taskInstructions: task?.instructions ?? null,
        artifact: { version: docVersion, fields },
        imageFields: [],
        images: {},
        fieldLabels: task?.fieldLabels ?? {},
        utterances,
      },
    });
  }
  return out;
}
