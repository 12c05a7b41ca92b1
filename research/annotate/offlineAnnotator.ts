/**
 * OFFLINE DEMO ANNOTATOR — keyword rules, not a real annotation. Used when no OPENAI_API_KEY is set
 * so `npm run annotate` runs on a fresh clone. It reads the utterances out of the annotator prompt
 * and answers in the required JSON; records name provider and model "offline-annotator-demo".
 */
import { firstUserText, InstantReplyProvider } from '../judge/instantReplyProvider';
import type { FrictionLabel, GroundingAct } from '../../common/labels';

export const OFFLINE_ANNOTATOR_NAME = 'offline-annotator-demo';

interface PromptUtterance {
  turn: number;
  speaker: 'user' | 'agent';
  text: string;
}

export function utterancesFromPrompt(userText: string): PromptUtterance[] {
  const m = /<<<DATA (\w+) utterances>>>\n([\s\S]*?)\n<<<END \1 utterances>>>/.exec(userText);
  if (!m?.[2]) return [];
  return m[2].split('\n').map((line) => JSON.parse(line) as PromptUtterance);
}

export function offlineLabels(u: PromptUtterance): { grounding: GroundingAct[]; friction: FrictionLabel } {
  const t = u.text.trim().toLowerCase();
  const words = t.split(/\s+/).filter(Boolean).length;
  const grounding = new Set<GroundingAct>();
  let friction: FrictionLabel = 'none';
  if (/^(ok|okay|got it|thanks|thank you|great|sure|cool)\b/.test(t)) grounding.add('acknowledgement');
  if (/^(yes|yeah|agreed|sounds good|perfect)\b/.test(t)) grounding.add('agreement');
  if (/^(no|nope|not really|that's wrong|actually)\b/.test(t)) grounding.add('disagreement');
  if (/\b(sorry, i meant|i meant|correction)\b/.test(t)) grounding.add('repair');
  if (/\b(so you|you mean|in other words)\b/.test(t)) grounding.add('display');
  if (t.includes('?')) {
    if (u.speaker === 'agent') {
      grounding.add('clarification');
      if (/\bwhy\b|\bwhat if\b|\bhave you considered\b/.test(t)) friction = 'probing';
    } else grounding.add(u.turn === 0 ? 'topic_switch' : 'followup');
  }
  if (/\b(i('| a)m assuming|assuming that|i assume)\b/.test(t)) friction = 'assumption_reveal';
  if (/\b(before we (go on|continue)|let's check|let me recap)\b/.test(t)) friction = 'reflective_pause';
  if (u.speaker === 'agent') {
    if (words > 250) grounding.add('overresponse');
    if (!t.endsWith('?')) grounding.add('response');
  }
  return { grounding: [...grounding], friction };
}

export class OfflineAnnotatorProvider extends InstantReplyProvider {
  constructor() {
    super(OFFLINE_ANNOTATOR_NAME, (request) =>
      JSON.stringify({ annotations: utterancesFromPrompt(firstUserText(request)).map((u) => ({ turn: u.turn, speaker: u.speaker, ...offlineLabels(u) })) }),
    );
  }
}
