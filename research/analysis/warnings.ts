import { sampleSd } from '../../lib/stats/sampleSd';
import { gather } from './productivity/taskGroups';
import type { SessionFeatures } from './features/sessionFeatures';

/**
 * Conditions the analysis handles but a researcher must know about (summary.json.warnings, stderr):
 * no scored session; a task with one scored session (no z, Pz or quadrant, left out of quartiles); a task
 * whose quality does not vary (z(Q) = 0 for all its sessions, so Pz only reflects cost); sessions whose
 * speaker has no annotated turns (their rates are missing, not 0).
 */
export function datasetWarnings(groups: Map<string, Int32Array>, quality: Float64Array, nSessions: number, features: SessionFeatures | null): string[] {
  const out: string[] = [];
  if (groups.size === 0) out.push(`no scored session (quality is empty for all ${nSessions}): z, Pz, quadrants and quartiles are empty`);
  const solo = [...groups].filter(([, idx]) => idx.length === 1).map(([t]) => t);
  if (solo.length) out.push(`task(s) with one scored session: ${solo.join(', ')} — z, Pz and quadrant are null and the session is left out of quartiles`);
  const flat = [...groups].filter(([, idx]) => idx.length > 1 && sampleSd(gather(quality, idx)) === 0).map(([t]) => t);
  if (flat.length) out.push(`task(s) whose quality does not vary: ${flat.join(', ')} — z(Q) = 0 for every session, so Pz there only reflects cost`);
  if (features) {
    const scored = [...groups.values()].flatMap((idx) => Array.from(idx));
    const noAgent = scored.filter((i) => features.turns[i * 3 + 1] === 0).length;
    const noUser = scored.filter((i) => features.turns[i * 3] === 0).length;
    if (noAgent || noUser) {
      out.push(`${noAgent} scored session(s) without annotated agent turns and ${noUser} without user turns: their rates for that speaker are missing (not 0) and left out of the feature comparisons`);
    }
  }
  return out;
}
