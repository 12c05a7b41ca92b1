/**
 * Who writes a simulated person's words in a group room: a script (numbered ideas, the default) or an LLM playing
 * the person (`--agent-participants <model>`), through the same provider interface as the platform's assistants
 * (lib/llm): `offline` is the built-in demo model (no network, no key); any other name is sent to the
 * OpenAI-compatible endpoint at `--agent-base-url` (else OPENAI_BASE_URL) with OPENAI_API_KEY. A model call that
 * fails does not stop the person: they post the scripted line instead, and the failure is counted.
 */
import { OfflineProvider, OFFLINE_MODEL } from '../../lib/llm/offlineProvider';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import type { ChatMessage, LlmProvider } from '../../lib/llm/provider';
import type { GroupMessageView } from '../../common/groupEvents';

/** What the writer knows when a person's turn comes. */
export interface TurnContext {
  personIndex: number;
  turn: number;
  /** The person's display name in the room (Member N). */
  selfName: string;
  task: { title: string; instructions: string };
  /** The room so far, in group_seq order. */
  history: readonly GroupMessageView[];
}

export interface WrittenTurn {
  text: string;
  /** The model call failed and the scripted line was sent instead. */
  failed: boolean;
}

export interface ParticipantWriter {
  /** "script", or the model that answered (provider/model). */
  readonly label: string;
  write(context: TurnContext): Promise<WrittenTurn>;
}

/** Room messages are bounded by the study (chat.max_message_chars); a simulated person stays well inside. */
export const MAX_SIMULATED_MESSAGE_CHARS = 600;

export const scriptedLine = (c: Pick<TurnContext, 'personIndex' | 'turn'>) => `Simulated idea ${c.turn + 1} from person ${c.personIndex}.`;

export const scriptedWriter: ParticipantWriter = { label: 'script', write: async (c) => ({ text: scriptedLine(c), failed: false }) };

/** The model's view of the room: the person's own messages as its turns, everyone else's as named lines. */
export function personaMessages(c: TurnContext): ChatMessage[] {
  const system =
    `You are taking part in a research study as ${c.selfName}, one person in a small group that works on a task together in a chat room ` +
    `(other people, and possibly an AI agent, are in the room). Task: ${c.task.title}. ${c.task.instructions}\n` +
    'Write your next chat message to the group: one to three sentences, in your own voice, moving the task on. Do not say you are an AI.';
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (const m of c.history.slice(-30)) {
    if (m.senderName === c.selfName && m.senderKind === 'participant') messages.push({ role: 'assistant', content: m.text });
    else messages.push({ role: 'user', content: `${m.senderName}: ${m.text}` });
  }
  if (messages.at(-1)?.role !== 'user') messages.push({ role: 'user', content: c.history.length === 0 ? '(The room has just opened. Say hello and propose a first idea.)' : '(Your turn.)' });
  return messages;
}

export function llmWriter(provider: LlmProvider, model: string, options: { temperature?: number; seed?: number } = {}): ParticipantWriter {
  return {
    label: `${provider.name}/${model}`,
    async write(c) {
      const result = await provider.complete({ model, messages: personaMessages(c), maxTokens: 150, temperature: options.temperature ?? 0.8, ...(options.seed === undefined ? {} : { seed: options.seed + c.personIndex * 1000 + c.turn }) });
      const text = result.text.trim().slice(0, MAX_SIMULATED_MESSAGE_CHARS);
      if (result.error || text === '') return { text: scriptedLine(c), failed: true };
      return { text, failed: false };
    },
  };
}

/** The writer `--agent-participants <model>` asks for. */
export function participantWriter(model: string, options: { baseUrl?: string; env?: NodeJS.ProcessEnv; seed?: number } = {}): ParticipantWriter {
  const env = options.env ?? process.env;
  if (model === 'offline' || model === OFFLINE_MODEL) return llmWriter(new OfflineProvider({ tokensPerSecond: 0, firstTokenDelayMs: 0 }), OFFLINE_MODEL, { seed: options.seed });
  const baseURL = options.baseUrl ?? env.OPENAI_BASE_URL;
  const apiKey = env.OPENAI_API_KEY?.trim();
  if (!apiKey && !options.baseUrl) throw new Error(`--agent-participants ${model}: set OPENAI_API_KEY (and OPENAI_BASE_URL or --agent-base-url for a non-OpenAI endpoint), or use --agent-participants offline`);
  return llmWriter(new OpenAIProvider({ apiKey: apiKey || 'not-needed', ...(baseURL ? { baseURL } : {}), maxAttempts: 2 }), model, { seed: options.seed });
}
