/**
 * The group part of the live monitor (common/groupMonitor.ts): each lobby of the study's group conditions as a
 * count and the oldest wait (never who waits), and each live group (and those ended in the last 15 minutes) with its
 * members' presence, the room's latest messages and the shared document's current text, read from the store so that
 * every node shows the same. Live changes between snapshots come from the group runtime (groupMonitorFeed.ts).
 */
import { spokenByWizard } from '../../common/group';
import type { MonitorGroup, MonitorGroups, MonitorLobby } from '../../common/groupMonitor';
import { groupDocument, type GroupRow, type Store } from '../../lib/storage';
import type { LoadedConfig } from '../../lib/studyFiles/studyConfig';

/** The latest messages of each group the monitor carries (the room's whole history is in the session pages and the export). */
export const MONITOR_GROUP_MESSAGES = 50;

/** The monitor's groups of a study; undefined when the study has no group condition. */
export async function monitorGroups(store: Store, config: LoadedConfig, studyId: string, endedSince: number): Promise<MonitorGroups | undefined> {
  const study = config.studies.get(studyId);
  const groupConditions = study?.conditions.filter((c) => c.group) ?? [];
  if (!study || groupConditions.length === 0) return undefined;
  const [entries, groups] = await Promise.all([store.groups.listLobbyEntries(studyId), store.groups.listGroups(studyId)]);
  const lobbies: MonitorLobby[] = [];
  for (const c of groupConditions)
    for (const t of study.tasks) {
      const waiting = entries.filter((e) => e.outcome === null && e.conditionId === c.id && e.taskId === t.id);
      lobbies.push({
        conditionId: c.id,
        taskId: t.id,
        waiting: waiting.length,
        oldestJoinedAt: waiting.length === 0 ? null : Math.min(...waiting.map((e) => e.joinedAt)),
        size: c.group!.size,
        timeoutSeconds: c.group!.lobby.timeout_seconds,
      });
    }
  const shown = groups.filter((g) => g.status === 'active' || (g.endedAt ?? 0) >= endedSince);
  // Newest first, as the sessions table.
  shown.sort((a, b) => b.formedAt - a.formedAt || (a.id < b.id ? -1 : 1));
  return { lobbies, groups: await Promise.all(shown.map((g) => groupOf(store, config, g))) };
}

async function groupOf(store: Store, config: LoadedConfig, g: GroupRow): Promise<MonitorGroup> {
  const [members, messages, updates] = await Promise.all([store.groups.listMembers(g.id), store.groups.listMessages(g.id), store.groups.listDocUpdates(g.id)]);
  const condition = config.studies.get(g.studyId)?.conditions.find((c) => c.id === g.conditionId);
  const declared = new Set((condition?.agents ?? []).map((a) => a.name));
  return {
    groupId: g.id,
    conditionId: g.conditionId,
    taskId: g.taskId,
    status: g.status,
    endReason: g.endReason,
    formedAt: g.formedAt,
    endedAt: g.endedAt,
    // Typing is each node's memory: the live presence pushes carry it.
    members: members.map((m) => ({
      seat: m.seat,
      name: m.displayName,
      kind: m.kind,
      status: m.status,
      typing: false,
      sessionId: m.sessionId,
      awaySince: m.awaySince,
      standIn: m.kind === 'agent' && !declared.has(m.displayName),
    })),
    messages: messages.slice(-MONITOR_GROUP_MESSAGES).map((m) => ({ groupSeq: m.groupSeq, senderKind: m.senderKind, senderName: m.senderName, text: m.content, createdAt: m.createdAt })),
    doc: groupDocument(updates),
    wizardAgents: (condition?.agents ?? []).filter(spokenByWizard).map((a) => a.name),
  };
}
