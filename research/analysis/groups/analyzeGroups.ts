/**
 * The group part of `npm run analyze` (docs/groups.md): when the dataset has sessions of group conditions, their
 * groups are analysed with the group as the unit (summary.json's `groups`, the report's "Groups" section); a
 * dataset without them gets nothing here, so single-person studies are analysed exactly as before.
 */
import { join } from 'node:path';
import { EXCLUDED_SESSION } from '../input/datasetError';
import type { Dataset } from '../input/dataset';
import type { AnalysisOptions } from '../summary';
import { readGroupsFile } from './groupsFile';
import { readRoomCounts } from './roomMessages';
import { groupUnits } from './groupUnits';
import { groupSection, type GroupSection } from './groupSection';
import { groupsHtml } from './groupsHtml';

export interface GroupAnalysis {
  section: GroupSection;
  html: string;
}

export function analyzeGroups(datasetDir: string, data: Dataset, options: AnalysisOptions): GroupAnalysis | null {
  const people = data.groupSessions;
  if (people === null) return null;
  const index = new Map<string, number>();
  const s = data.sessions;
  for (const id of [...s.excludedPilotIds, ...s.excludedUnconsentedIds, ...s.excludedSimulatedIds, ...s.ids]) index.set(id, EXCLUDED_SESSION);
  people.ids.forEach((id, i) => index.set(id, i));
  const rooms = readRoomCounts(join(datasetDir, 'messages.jsonl'), index);
  const units = groupUnits(people, rooms, readGroupsFile(join(datasetDir, 'groups.csv')), people.excludedGroupIds);
  const section = groupSection(units, options);
  return { section, html: groupsHtml(section, people.simulatedColumn ? people.excludedSimulatedIds.length : null) };
}
