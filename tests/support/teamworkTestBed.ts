/**
 * Test support: a fake OpenAI-compatible server routing judge prompts and subject prompts to scripted
 * answers, plus a run context whose every seat talks to it through the real `openai` client and the
 * reply cache. Used by the runner, suite and CLI tests and the benchmark.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TeamworkTask } from '../../common/teamworkTask';
import type { ModelReplyCache } from '../../lib/storage';
import { openFileReplyCache } from '../../lib/storage';
import { contentText, reply, startFakeOpenAI, type FakeBehaviour, type FakeOpenAI, type RecordedRequest } from './fakeOpenAI';
import { ModelClients } from '../../research/teamwork/runner/clients';
import type { RunContext } from '../../research/teamwork/runner/context';
import { unfenced } from '../../research/teamwork/runner/prompts';

export const isJudgeRequest = (r: RecordedRequest): boolean => contentText(r.body?.messages?.[0]?.content).startsWith('You label one message');

/** The message a judge request asks about. */
export function judgedText(r: RecordedRequest): string {
  const user = contentText(r.body.messages[1]?.content);
  return unfenced('MESSAGE', user) ?? '';
}

/** Round of a subject request: the number of user messages in it. */
export const subjectRound = (r: RecordedRequest): number => (r.body.messages as Array<{ role: string }>).filter((m) => m.role === 'user').length;

export interface Script {
  /** Label for a judged message (rater: 'referee' | 'second' | 'third' from the request's model name). */
  judge: (message: string, rater: string) => string;
  /** The subject's behaviour for a request. */
  subject: (request: RecordedRequest) => FakeBehaviour | string;
}

/** `options.delayMs` is read at each request, so a test may change the pace while the server runs. */
export async function startScriptedServer(script: Script, options: { delayMs?: number } = {}): Promise<FakeOpenAI> {
  const fake = await startFakeOpenAI();
  fake.setResponder((request) => {
    const b = isJudgeRequest(request) ? reply(script.judge(judgedText(request), String(request.body.model))) : script.subject(request);
    const behaviour = typeof b === 'string' ? reply(b) : b;
    return options.delayMs && behaviour.type === 'reply' ? { ...behaviour, delayMs: options.delayMs } : behaviour;
  });
  return fake;
}

export async function fakeContext(
  fake: FakeOpenAI,
  tasks: readonly TeamworkTask[],
  extra: Partial<RunContext> & { dir?: string } = {},
): Promise<{ ctx: RunContext; clients: ModelClients; cache: ModelReplyCache; dir: string }> {
  const dir = extra.dir ?? mkdtempSync(join(tmpdir(), 'teamwork-'));
  const cache = await openFileReplyCache(join(dir, 'cache.sqlite'));
  const clients = new ModelClients(tasks, cache, { env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: fake.url }, maxAttempts: 2, backoffBaseMs: 5, timeoutMs: 5_000 });
  const ctx: RunContext = {
    subject: clients.seat('subject-model'),
    partnerFor: (m) => clients.seat(m ?? 'partner-model'),
    referee: clients.seat('referee-model'),
    second: clients.seat('second-model'),
    temperature: 0.7,
    maxTokens: 300,
    ...extra,
  };
  return { ctx, clients, cache, dir };
}
