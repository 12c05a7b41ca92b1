import type { Dataset } from '../../../research/analysis/input/dataset';
import { seededRandom } from '../../../lib/stats/seededRandom';

/**
 * An in-memory study: `tasks` tasks × `perTask` sessions, conditions alternating baseline / clarify-first.
 * Quality is a 1–5 rating (rounded normal around a task level); tokens are lognormal-ish. `effect` adds
 * that many points of quality and takes `effect`·20% off the agent's tokens in clarify-first (0 = no effect).
 */
export function conditionDataset(seed: number, { tasks = 3, perTask = 24, effect = 0 } = {}): Dataset {
  const random = seededRandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const n = tasks * perTask;
  const ids: string[] = [];
  const taskOf: string[] = [];
  const conditions: string[] = [];
  const quality = new Float64Array(n);
  const user = new Float64Array(n);
  const agent = new Float64Array(n);
  const turns = new Float64Array(n);
  const ease = new Float64Array(n);
  for (let t = 0; t < tasks; t++) {
    const level = 2.5 + t * 0.5;
    for (let j = 0; j < perTask; j++) {
      const i = t * perTask + j;
      const treated = j % 2 === 1;
      ids.push(`s${String(i).padStart(4, '0')}`);
      taskOf.push(`task${t}`);
      conditions.push(treated ? 'clarify-first' : 'baseline');
      quality[i] = Math.min(5, Math.max(1, Math.round(level + normal() + (treated ? effect : 0))));
      user[i] = Math.round(200 * Math.exp(0.4 * normal()));
      agent[i] = Math.round(1500 * Math.exp(0.4 * normal()) * (treated ? 1 - 0.2 * effect : 1));
      turns[i] = 4 + Math.floor(random() * 10);
      ease[i] = Math.min(5, Math.max(1, Math.round(3 + normal())));
    }
  }
  return {
    sessions: {
      ids,
      tasks: taskOf,
      conditions,
      quality,
      counts: { user_tokens: user, agent_tokens: agent, user_turns: turns, agent_turns: turns.slice() },
      countsPresent: ['user_tokens', 'agent_tokens', 'user_turns', 'agent_turns'],
      likertItems: ['ease'],
      likert: [ease],
      excludedPilotIds: [],
      excludedUnconsentedIds: [],
      excludedSimulatedIds: [],
      simulatedColumn: false,
      excludedGroupIds: new Set(),
      groupIds: ids.map(() => null),
      lobbyOutcomes: ids.map(() => null),
      groupEdits: new Float64Array(ids.length).fill(NaN),
    },
    annotations: null,
    countsSource: 'sessions.csv',
    judgedQuality: 0,
    groupSessions: null,
  };
}
