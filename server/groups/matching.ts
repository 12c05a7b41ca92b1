/**
 * Who forms a group out of the people waiting (pure; the lobby runs it inside its locked transaction). Arrival:
 * the first `size.max` to arrive. Quota: the first people of each quota value, as many as the value's seats. "First"
 * is the lobby's arrival number (arrivalSeq, migration 029), not joined_at: two people can join in one millisecond.
 */
import type { GroupConfig } from '../../common/group';
import type { LobbyEntryRow } from '../../lib/storage';

/**
 * The members of a new group in arrival order, or null when none forms. `full`: only a group of size.max (a join);
 * otherwise (a timeout with start_smaller) whoever the seats take, if at least size.min.
 */
export function pickGroup(waiting: readonly LobbyEntryRow[], config: GroupConfig, full: boolean): LobbyEntryRow[] | null {
  const need = full ? config.size.max : config.size.min;
  const byArrival = [...waiting].sort((a, b) => a.arrivalSeq - b.arrivalSeq);
  let picked: LobbyEntryRow[];
  if (config.form_by === 'arrival') picked = byArrival.slice(0, config.size.max);
  else {
    const left = new Map(Object.entries(config.form_by.quota.seats));
    picked = [];
    for (const entry of byArrival) {
      const free = entry.quotaValue === null ? 0 : (left.get(entry.quotaValue) ?? 0);
      if (free > 0) {
        picked.push(entry);
        left.set(entry.quotaValue!, free - 1);
      }
    }
  }
  return picked.length >= need ? picked : null;
}

/** Whether a person with this quota value can ever get a seat (arrival: always). */
export function hasSeatFor(config: GroupConfig, quotaValue: string | null): boolean {
  if (config.form_by === 'arrival') return true;
  return quotaValue !== null && (config.form_by.quota.seats[quotaValue] ?? 0) > 0;
}

/** The lobby a session waits in: one per study, condition and task. */
export const lobbyKey = (e: { studyId: string; conditionId: string; taskId: string }): string => `${e.studyId}/${e.conditionId}/${e.taskId}`;
