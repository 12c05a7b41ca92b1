/**
 * One interface for every model call: participant chat, judge, annotator, simulated participant.
 *
 * A request goes in; a `CompletionResult` comes out. Streaming is optional: pass `onDelta` to receive
 * text as it arrives. Implementations never throw for provider trouble (HTTP 429/5xx, timeouts, a
 * stream that dies): they retry with backoff as configured and then return a result whose `error` is
 * set, with whatever text had arrived and `interrupted` true when a stream broke mid-reply.
 * Aborting through `signal` (the participant pressed Stop) returns `finishReason: 'aborted'`.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

/** Part of a multi-part user message, in the OpenAI chat shape (passed to the `openai` client as is). */
export interface TextContentPart {
  type: 'text';
  text: string;
}
export interface ImageContentPart {
  type: 'image_url';
  /** `url` is a `data:<media type>;base64,…` URL for local images; `detail` trades tokens for resolution. */
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ContentPart = TextContentPart | ImageContentPart;

/**
 * Content is a string in the common case. A user message may instead be a list of parts (text and
 * images), which only vision-capable models accept; system and assistant messages are always text.
 */
export type ChatMessage =
  | { role: 'system'; content: string }
  /** `tool_calls`: the tools the assistant called in this message (OpenAI tools API), when it called any. */
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  | { role: 'user'; content: string | ContentPart[] }
  /** The result of one tool call, answering the assistant message that made it. */
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call as the OpenAI chat API carries it; `arguments` is the model's JSON text, unparsed (it may be malformed). */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool offered to the model (OpenAI `tools` entry); `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export type ToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** The text of a message: the string itself, or its text parts joined by blank lines (images left out). */
export function messageText(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n\n');
}

export interface CompletionRequest {
  /** Exact model name sent to the provider (e.g. "gpt-4o-mini-2024-07-18"). */
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  /** Receives each text fragment as it streams. When absent, the call need not stream. */
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
  /** Overrides the provider's default per-call timeout (ms). */
  timeoutMs?: number;
  /** Tools offered to the model (OpenAI tools API); absent = none, and the request carries no `tools` field. */
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  /**
   * The study session this call answers, when it answers one. Providers that cache calls of their own (the
   * teamwork seat's judges) link the cached replies to it, so a withdrawal purges them; never sent to a model.
   */
  sessionId?: string;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type FinishReason = 'stop' | 'length' | 'content_filter' | 'aborted' | 'error' | string;

export interface ProviderError {
  /** 'rate_limit' (429), 'server' (5xx), 'timeout', 'stream' (died mid-reply), 'client' (4xx other than 429), 'network'. */
  kind: 'rate_limit' | 'server' | 'timeout' | 'stream' | 'client' | 'network';
  message: string;
  status?: number;
  /** Whether the participant (or caller) may sensibly try again. */
  retryable: boolean;
}

export interface CompletionResult {
  text: string;
  /** Provider-reported usage; null when the provider reported none (e.g. a stream cut short). */
  usage: TokenUsage | null;
  /** Which provider produced this ("openai-compatible", "offline"). */
  provider: string;
  /** The model the provider says answered (may differ from the requested one). */
  model: string;
  /** Base URL of the provider, for the record; null for the offline provider. */
  providerUrl: string | null;
  systemFingerprint: string | null;
  finishReason: FinishReason;
  /** ms from request start to the first streamed text; null when nothing arrived or not streamed. */
  ttftMs: number | null;
  /** ms from request start to the end of the reply (success or failure). */
  latencyMs: number;
  /** Number of attempts made (1 = no retry). */
  attempts: number;
  /** True when a stream started but broke before a finish reason arrived. */
  interrupted: boolean;
  error?: ProviderError;
  /** Tool calls the model made (present only when it made some). */
  toolCalls?: ToolCall[];
  /** The provider's refusal message (OpenAI `refusal`), when the model declined to answer. */
  refusal?: string;
}

export interface LlmProvider {
  /** Short stable name recorded with every result. */
  readonly name: string;
  complete(request: CompletionRequest): Promise<CompletionResult>;
}
