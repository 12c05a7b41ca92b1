/**
 * A person in the model's seat, replayed from their messages alone. The participant's first message
 * starts the task (it is not judged); the reply to it carries the arm's brief and round 1's posts. Their
 * k-th message after it is the subject's message of round k: the same judges label it (through the reply
 * cache), and the posts of round k+1 follow on the same branching as in model runs (runner/seats.ts).
 *
 * Everything is recomputed from the participant's texts each time, with every judge and partner call
 * served from the cache after its first time: the teammate provider answers a retried or recovered reply
 * with the same text, and the `from-study` export rebuilds the same trajectory with no new calls. The
 * judges and LLM partners see the participant as "model", exactly the prompts of model runs, so people and
 * models are labelled alike.
 */
import { countTokens } from '../../../common/tokens';
import { SEAT_NOTES, seatBriefText, seatLastText, seatPostText, seatRoundText } from '../../../common/seatReply';
import type { RunEvent, RunMessage } from '../../../common/teamworkRun';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import { isCompletedReply } from '../../judge/cachedModelClient';
import type { RunContext } from '../runner/context';
import { judgeMessage, type JudgeContext } from '../runner/judgeMessage';
import { incomingText, partnerMessages, seatsIn, type TranscriptLine } from '../runner/prompts';
import { environmentPosts, sayScriptedLine, type BranchState } from '../runner/seats';

export type SeatContext = JudgeContext & Pick<RunContext, 'partnerFor' | 'temperature' | 'maxTokens'>;

export const PARTICIPANT_SPEAKER = 'participant';
/** The seed of LLM partner calls in the seat (one conversation, one seed: the cache key must not vary). */
export const SEAT_SEED = 1;
export const ROUND_LIMIT_REPLY = seatLastText();
/** The last-turn reply as sessions before the structured seat reply (common/seatReply.ts) stored it. */
const LEGACY_ROUND_LIMIT_REPLY = '(That was your last turn. The team is waiting for your answer: write it in the answer form and submit it.)';

export class SeatCallFailed extends Error {}

/** What the participant is told, in place of the model's system prompt: the same brief and materials, the form instead of a tool. */
export function participantBrief(task: TeamworkTask, arm: TeamworkArm): string {
  const { teammates, environment } = seatsIn(task, arm);
  const parts = [task.brief[arm]];
  for (const m of task.materials.filter((x) => x.arms.includes(arm))) parts.push(`--- ${m.name} ---\n${m.text}`);
  const others = [...teammates.map((t) => t.name), ...environment.map((e) => e.name)];
  parts.push(others.length > 0 ? `You are working with: ${others.join(', ')}. Their messages appear in the chat under their names.` : 'You are working on your own: nobody else takes part in this task.');
  parts.push(`When you are ready, write your answer in the answer form and submit it. You have at most ${task.rounds} turns.`);
  return parts.join('\n\n');
}

/** The brief as sessions before the structured seat reply were shown it. */
function legacyBrief(task: TeamworkTask, arm: TeamworkArm): string {
  const { teammates, environment } = seatsIn(task, arm);
  const parts = [task.brief[arm]];
  for (const m of task.materials.filter((x) => x.arms.includes(arm))) parts.push(`--- ${m.name} ---\n${m.text}`);
  const others = [...teammates.map((t) => t.name), ...environment.map((e) => e.name)];
  parts.push(others.length > 0 ? `You are working with: ${others.join(', ')}. Their messages reach you here as "Name: message".` : 'You are working on your own.');
  parts.push(`When you are ready, write your answer in the answer form and submit it. You have at most ${task.rounds} turns.`);
  return parts.join('\n\n');
}

export interface ParticipantLine {
  text: string;
  created_at?: string;
}

export interface SeatReplay {
  /** The trajectory in the runs format (seq from 0; session_id left to the caller). */
  messages: RunMessage[];
  /** What the teammates say after the participant's last message: the provider's reply. */
  reply: string;
  /** The reply after each participant message, in order (the last is `reply`). */
  replies: string[];
  /** The same replies as sessions stored them before the structured seat reply ("Name: message" lines), to compare old sessions with. */
  legacyReplies: string[];
  roundsPlayed: number;
  judgeTokens: { input: number; output: number };
  events: RunEvent[];
}

type Mate = TeamworkTask['teammates'][number];

export async function replaySeat(task: TeamworkTask, arm: TeamworkArm, participant: readonly ParticipantLine[], ctx: SeatContext): Promise<SeatReplay> {
  const messages: RunMessage[] = [];
  const events: RunEvent[] = [];
  const heard: TranscriptLine[] = [];
  const said = new Map<string, Set<number>>();
  const everLabels = new Set<string>();
  const judgeTokens = { input: 0, output: 0 };
  let lastLabel: string | null = null;
  const { teammates } = seatsIn(task, arm);
  const push = (m: Partial<RunMessage> & Pick<RunMessage, 'speaker' | 'role' | 'text'>): RunMessage => {
    const message = { seq: messages.length, tokens: countTokens(m.text), ...m } as RunMessage;
    messages.push(message);
    return message;
  };

  async function partnerLine(mate: Extract<Mate, { kind: 'llm' }>, teamArm: 'calm' | 'test', round: number, at?: string): Promise<string> {
    const seat = ctx.partnerFor(mate.model);
    const persona = typeof mate.persona === 'string' ? mate.persona : mate.persona[teamArm];
    const outcome = await seat.client.complete(
      {
        purpose: 'teamwork:partner', model: seat.model, messages: partnerMessages(persona, mate.name, heard), temperature: ctx.temperature, maxTokens: ctx.maxTokens,
        seed: SEAT_SEED, sampleIndex: 0, ...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}), ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
      },
      ctx.signal,
    );
    const r = outcome.result;
    if (!isCompletedReply(r)) throw new SeatCallFailed(`partner ${mate.name} (${seat.model}): ${r.error?.message ?? r.finishReason}`);
    push({
      round, speaker: mate.name, seat: 'teammate', role: 'assistant', text: r.text, model: r.model, provider: r.provider, ttft_ms: r.ttftMs, duration_ms: r.latencyMs,
      finish_reason: r.finishReason, interrupted: r.interrupted, usage: r.usage ? { input: r.usage.promptTokens, output: r.usage.completionTokens } : null, cached: outcome.cached,
      ...(at ? { created_at: at } : {}),
    });
    return r.text;
  }

  /** The posts of a round (environment, then teammates), pushed to the trajectory and heard by everyone. */
  async function othersSpeak(round: number, at?: string): Promise<{ text: string; legacy: string }> {
    if (arm === 'alone') return { text: seatRoundText(round, task.rounds, SEAT_NOTES.alone), legacy: incomingText([]) };
    const kinds = new Map<string, 'teammate' | 'environment'>();
    const posts = environmentPosts(task, arm, round);
    for (const p of posts) {
      kinds.set(p.speaker, 'environment');
      push({ round, speaker: p.speaker, seat: 'environment', role: 'assistant', text: p.text, model: null, ...(at ? { created_at: at } : {}) });
    }
    const state: BranchState = { round, lastLabel, everLabels };
    for (const mate of teammates) {
      if (mate.kind === 'scripted') {
        const line = sayScriptedLine(mate, arm, said, state);
        if (!line) continue;
        push({ round, speaker: mate.name, seat: 'teammate', role: 'assistant', text: line.text, model: null, line: line.index, ...(at ? { created_at: at } : {}) });
        posts.push({ speaker: mate.name, text: line.text });
      } else {
        posts.push({ speaker: mate.name, text: await partnerLine(mate, arm, round, at) });
      }
    }
    for (const p of posts) heard.push(p);
    const shown = posts.map((p) => seatPostText(p.speaker, kinds.get(p.speaker) ?? 'teammate', p.text));
    const marker = seatRoundText(round, task.rounds, posts.length > 0 ? SEAT_NOTES.team : SEAT_NOTES.quiet);
    return { text: [marker, ...shown].join('\n\n'), legacy: incomingText(posts) };
  }

  const brief = participantBrief(task, arm);
  push({ round: 0, speaker: 'system', seat: 'system', role: 'system', text: brief, model: null });
  let reply = '';
  let legacy = '';
  const replies: string[] = [];
  const legacyReplies: string[] = [];
  let roundsPlayed = 0;
  for (const [k, line] of participant.entries()) {
    if (k > 0) {
      replies.push(reply);
      legacyReplies.push(legacy);
    }
    const at = line.created_at ? { created_at: line.created_at } : {};
    if (k === 0) {
      push({ round: 0, speaker: PARTICIPANT_SPEAKER, seat: 'subject', role: 'user', text: line.text, model: null, ...at });
      const first = await othersSpeak(1, line.created_at);
      reply = `${seatBriefText(brief)}\n\n${first.text}`;
      legacy = `${legacyBrief(task, arm)}\n\n${first.legacy}`;
      continue;
    }
    if (k > task.rounds) {
      push({ round: null, speaker: PARTICIPANT_SPEAKER, seat: 'subject', role: 'user', text: line.text, model: null, ...at });
      events.push({ type: 'after_round_limit', round: null, detail: `message ${k} came after the last round (${task.rounds}); not labelled` });
      reply = ROUND_LIMIT_REPLY;
      legacy = LEGACY_ROUND_LIMIT_REPLY;
      continue;
    }
    roundsPlayed = k;
    const message = push({ round: k, speaker: PARTICIPANT_SPEAKER, seat: 'subject', role: 'user', text: line.text, model: null, ...at });
    const judged = await judgeMessage(task, heard, line.text, ctx);
    message.labels = judged.labels;
    judgeTokens.input += judged.tokens.input;
    judgeTokens.output += judged.tokens.output;
    lastLabel = judged.labels.final;
    everLabels.add(lastLabel);
    heard.push({ speaker: 'model', text: line.text });
    const next = k < task.rounds ? await othersSpeak(k + 1, line.created_at) : { text: ROUND_LIMIT_REPLY, legacy: LEGACY_ROUND_LIMIT_REPLY };
    reply = next.text;
    legacy = next.legacy;
  }
  if (participant.length > 0) {
    replies.push(reply);
    legacyReplies.push(legacy);
  }
  return { messages, reply, replies, legacyReplies, roundsPlayed, judgeTokens, events };
}
