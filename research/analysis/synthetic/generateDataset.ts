import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../../lib/stats/seededRandom';

export const FRICTION_LABELS = ['probing', 'assumption_reveal', 'overspecification', 'reflective_pause', 'reinforcement'];
export const GROUNDING_LABELS = [
  'acknowledgement', 'agreement', 'clarification', 'disagreement', 'display', 'followup',
  'overresponse', 'repair', 'repeat', 'response', 'topic_switch',
];

export interface SyntheticOptions {
  sessions: number;
  /** Mean annotated turns per session (user + agent). */
  turnsPerSession: number;
  tasks: string[];
  likertItems: string[];
  seed: number;
  /** Share of sessions with empty quality. */
  missingQuality: number;
  /** Share of Likert answers left empty. */
  missingLikert: number;
}

/**
 * Writes a synthetic dataset in the export layout (sessions.csv, annotations.csv) with a seeded
 * generator: quality 1–5 loosely tied to cost, agent probing more frequent in cheaper sessions.
 * Used by the benchmark and for held-out reference fixtures (checked by bench/analysis_ref.py).
 */
export function generateSyntheticDataset(dir: string, o: SyntheticOptions): { sessions: number; turns: number } {
  mkdirSync(dir, { recursive: true });
  const random = seededRandom(o.seed);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const sessionsOut = new BufferedFile(join(dir, 'sessions.csv'));
  const annotationsOut = new BufferedFile(join(dir, 'annotations.csv'));
  sessionsOut.write(`session_id,task,condition,quality,user_tokens,agent_tokens,user_turns,agent_turns${o.likertItems.map((i) => `,likert_${i}`).join('')}\n`);
  annotationsOut.write('session_id,turn,speaker,friction,grounding\n');
  const width = String(o.sessions).length;
  let turnsWritten = 0;
  for (let s = 0; s < o.sessions; s++) {
    const id = `g${o.seed}_${String(s + 1).padStart(width, '0')}`;
    const task = o.tasks[s % o.tasks.length]!;
    const skill = random();
    const turns = Math.max(2, Math.round(o.turnsPerSession * (0.3 + 1.4 * random())));
    const userTurns = Math.ceil(turns / 2);
    const agentTurns = turns - userTurns;
    const userTokens = userTurns * int(5, 40);
    const agentTokens = agentTurns * int(40, 300);
    const quality = random() < o.missingQuality ? '' : String(Math.min(5, Math.max(1, Math.round(1 + 4 * (0.6 * skill + 0.4 * random())))));
    const likert = o.likertItems.map(() => (random() < o.missingLikert ? '' : String(int(1, 7))));
    sessionsOut.write(`${id},${task},${s % 2 ? 'probe_first' : 'baseline'},${quality},${userTokens},${agentTokens},${userTurns},${agentTurns}${likert.map((v) => `,${v}`).join('')}\n`);
    const probing = 0.1 + 0.4 * skill;
    for (let t = 0; t < turns; t++) {
      const speaker = t % 2 === 0 ? 'user' : 'agent';
      const friction = random() < 0.45 ? 'none' : random() < probing ? 'probing' : FRICTION_LABELS[int(1, FRICTION_LABELS.length - 1)]!;
      const g1 = GROUNDING_LABELS[int(0, GROUNDING_LABELS.length - 1)]!;
      const grounding = random() < 0.4 ? `${g1};${GROUNDING_LABELS[int(0, GROUNDING_LABELS.length - 1)]!}` : g1;
      annotationsOut.write(`${id},${t},${speaker},${friction},${grounding}\n`);
    }
    turnsWritten += turns;
  }
  sessionsOut.close();
  annotationsOut.close();
  return { sessions: o.sessions, turns: turnsWritten };
}

/** Appends text to a file through a 4 MB buffer. */
class BufferedFile {
  private fd: number;
  private parts: string[] = [];
  private size = 0;
  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }
  write(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size > 4 * 1024 * 1024) this.flush();
  }
  close(): void {
    this.flush();
    closeSync(this.fd);
  }
  private flush(): void {
    writeSync(this.fd, this.parts.join(''));
    this.parts = [];
    this.size = 0;
  }
}
