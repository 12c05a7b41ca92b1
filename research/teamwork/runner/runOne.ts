/**
 * One run: a task, an arm and a seed, with the subject (the model under test) in its seat.
 *
 * Each round: environment seats post their fixed messages for the round, teammates speak (a scripted
 * teammate its next line on the judges' label of the subject's last message; an LLM partner a reply in
 * persona), then the subject answers — calling tools as often as the task allows within the round —
 * and the judges label each of its messages. The run ends after the round limit or when the subject
 * submits (submit tool, or a "FINAL:" line). Provider trouble that outlives the provider's retries ends
 * the run as `error`, a refusal as `refused`; both are stored and never scored as fails.
 */
import { randomUUID } from 'node:crypto';
import { countTokens } from '../../../common/tokens';
import type { RunEvent, RunMessage, RunToolCall, TeamworkRun } from '../../../common/teamworkRun';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import type { ModelCallOutcome } from '../../judge/cachedModelClient';
import { isCompletedReply } from '../../judge/cachedModelClient';
import type { ChatMessage, CompletionResult } from '../../../lib/llm/provider';
import { promptTokenCount } from '../../../lib/llm/tokens';
import { refusedParameterText } from '../endpoints/callError';
import { RunAborted, type RunContext } from './context';
import { runOutcome, taskFields } from './runOutcome';
import { gradeAnswer, UNREADABLE_GRADES } from './gradeAnswer';
import { JudgeFailed, judgeMessage } from './judgeMessage';
import { finalAnswerIn, incomingText, partnerMessages, seatsIn, subjectSystemPrompt, submitTool, type TranscriptLine } from './prompts';
import { environmentPosts, sayScriptedLine, type BranchState } from './seats';
import { carryOutToolCall, toolDefinitions } from './toolCalls';

export interface RunSpec {
  task: TeamworkTask;
  arm: TeamworkArm;
  seed: number;
}

class RunStopped extends Error {
  constructor(readonly status: 'error' | 'refused', message: string) {
    super(message);
  }
}

const refusalOf = (r: CompletionResult): string | null => (r.refusal ? r.refusal : r.finishReason === 'content_filter' ? 'content filter' : null);

export async function runOne(spec: RunSpec, ctx: RunContext): Promise<TeamworkRun> {
  const { task, arm, seed } = spec;
  const runId = `${ctx.subject.model}/${task.id}/${arm}/${seed}`;
  const started = new Date();
  const transcript: RunMessage[] = [];
  const events: RunEvent[] = [];
  const heard: TranscriptLine[] = [];
  const tokens = { input: 0, output: 0, o200k_input: 0, o200k_output: 0 };
  const judgeTokens = { input: 0, output: 0 };
  const tools = toolDefinitions(task);
  const { teammates } = seatsIn(task, arm);
  const said = new Map<string, Set<number>>();
  const everLabels = new Set<string>();
  let lastLabel: string | null = null;
  let answer: string | null = null;
  let submitted = false;
  let round = 0;
  let played = 0;

  const push = (m: Partial<RunMessage> & Pick<RunMessage, 'speaker' | 'role' | 'text'>): RunMessage => {
    const message = { session_id: runId, seq: transcript.length, created_at: new Date().toISOString(), tokens: countTokens(m.text), ...m } as RunMessage;
    transcript.push(message);
    return message;
  };
  const callFields = (o: ModelCallOutcome) => ({
    model: o.result.model, provider: o.result.provider, ttft_ms: o.result.ttftMs, duration_ms: o.result.latencyMs, finish_reason: o.result.finishReason,
    interrupted: o.result.interrupted, usage: o.result.usage ? { input: o.result.usage.promptTokens, output: o.result.usage.completionTokens } : null, cached: o.cached,
  });
  const checkAbort = (): void => {
    if (ctx.signal?.aborted) throw new RunAborted();
  };

  const system = subjectSystemPrompt(task, arm);
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  push({ round: 0, speaker: 'system', seat: 'system', role: 'system', text: system, model: null });

  async function partnerLine(mate: Extract<TeamworkTask['teammates'][number], { kind: 'llm' }>, teamArm: 'calm' | 'test'): Promise<string> {
    const seat = ctx.partnerFor(mate.model);
    const persona = typeof mate.persona === 'string' ? mate.persona : mate.persona[teamArm];
    const outcome = await seat.client.complete(
      { purpose: 'teamwork:partner', model: seat.model, messages: partnerMessages(persona, mate.name, heard), temperature: ctx.temperature, maxTokens: ctx.maxTokens, seed, sampleIndex: 0, ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}) },
      ctx.signal,
    );
    checkAbort();
    if (!isCompletedReply(outcome.result)) throw new RunStopped('error', refusedParameterText('partner', seat.model, outcome.result) ?? `partner ${mate.name} (${seat.model}): ${outcome.result.error?.message ?? outcome.result.finishReason}`);
    push({ round, speaker: mate.name, seat: 'teammate', role: 'user', text: outcome.result.text, ...callFields(outcome) });
    return outcome.result.text;
  }

  async function othersSpeak(): Promise<Array<{ speaker: string; text: string }>> {
    if (arm === 'alone') return [];
    const posts = environmentPosts(task, arm, round);
    for (const p of posts) push({ round, speaker: p.speaker, seat: 'environment', role: 'user', text: p.text, model: null });
    const state: BranchState = { round, lastLabel, everLabels };
    for (const mate of teammates) {
      if (mate.kind === 'scripted') {
        const line = sayScriptedLine(mate, arm, said, state);
        if (!line) continue;
        push({ round, speaker: mate.name, seat: 'teammate', role: 'user', text: line.text, model: null, line: line.index });
        posts.push({ speaker: mate.name, text: line.text });
      } else {
        posts.push({ speaker: mate.name, text: await partnerLine(mate, arm) });
      }
    }
    return posts;
  }

  /** One subject call; returns its message, judged. */
  async function subjectTurn(forceText: boolean): Promise<{ result: CompletionResult; message: RunMessage }> {
    const outcome = await ctx.subject.client.complete(
      {
        purpose: 'teamwork:subject', model: ctx.subject.model, messages, temperature: ctx.temperature, maxTokens: ctx.maxTokens, seed, sampleIndex: 0,
        ...(tools ? { tools, toolChoice: forceText ? 'none' : 'auto' } : {}),
        ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
      },
      ctx.signal,
    );
    checkAbort();
    const r = outcome.result;
    const sentO200k = promptTokenCount(messages) + countTokens(JSON.stringify(tools ?? []));
    tokens.o200k_input += sentO200k;
    tokens.input += r.usage?.promptTokens ?? sentO200k;
    if (!isCompletedReply(r)) throw new RunStopped('error', refusedParameterText('model', ctx.subject.model, r) ?? `model ${ctx.subject.model}: ${r.error?.message ?? r.finishReason} (after ${r.attempts} attempt${r.attempts === 1 ? '' : 's'})`);
    const refusal = refusalOf(r);
    const calls: RunToolCall[] = (r.toolCalls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
    const outO200k = countTokens(r.text) + calls.reduce((n, c) => n + countTokens(c.name) + countTokens(c.arguments), 0);
    tokens.o200k_output += outO200k;
    tokens.output += r.usage?.completionTokens ?? outO200k;
    const message = push({ round, speaker: 'model', seat: 'subject', role: 'assistant', text: r.text, ...callFields(outcome), ...(calls.length ? { tool_calls: calls } : {}), ...(refusal ? { refusal } : {}) });
    if (refusal) throw new RunStopped('refused', `refused: ${refusal}`);
    messages.push(r.toolCalls ? { role: 'assistant', content: r.text, tool_calls: r.toolCalls } : { role: 'assistant', content: r.text });
    const shown = [r.text, ...calls.map((c) => `[calls ${c.name}(${c.arguments})]`)].filter(Boolean).join('\n');
    try {
      const judged = await judgeMessage(task, heard, shown, ctx);
      message.labels = judged.labels;
      judgeTokens.input += judged.tokens.input;
      judgeTokens.output += judged.tokens.output;
      lastLabel = judged.labels.final;
      everLabels.add(lastLabel);
      if (judged.labels.unlabelled) events.push({ type: 'unlabelled', round, detail: `no rater named a label, even after a stricter retry: the run goes on with the default label "${task.labels.default}"` });
    } catch (error) {
      if (error instanceof JudgeFailed) throw new RunStopped('error', error.message);
      throw error;
    }
    heard.push({ speaker: 'model', text: shown });
    return { result: r, message };
  }

  let status: TeamworkRun['status'] = 'ok';
  let errorText: string | null = null;
  try {
    for (round = 1; round <= task.rounds && !submitted; round++) {
      played = round;
      const posts = await othersSpeak();
      const text = incomingText(posts);
      messages.push({ role: 'user', content: text });
      for (const p of posts) heard.push(p);
      let toolCallsLeft = task.max_tool_calls_per_round;
      for (;;) {
        const { result, message } = await subjectTurn(tools !== undefined && toolCallsLeft <= 0);
        const calls = result.toolCalls ?? [];
        if (calls.length === 0) {
          const final = finalAnswerIn(result.text);
          if (final !== null && !submitTool(task)) {
            answer = final;
            submitted = true;
          }
          break;
        }
        toolCallsLeft -= calls.length;
        for (const [i, call] of calls.entries()) {
          const outcome = carryOutToolCall(task, call);
          if (outcome.kind === 'malformed') {
            message.tool_calls![i]!.malformed = outcome.reason;
            events.push({ type: 'tool_call_malformed', round, detail: outcome.reason });
          }
          if (outcome.kind === 'submit' && !submitted) {
            answer = outcome.answer;
            submitted = true;
            events.push({ type: 'submitted', round, detail: outcome.tool.name });
          }
          messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.text });
          push({ round, speaker: `tool:${call.function.name}`, seat: 'tool', role: 'tool', text: outcome.text, tool_call_id: call.id, model: null });
          heard.push({ speaker: `tool:${call.function.name}`, text: outcome.text });
        }
        if (submitted) break;
      }
    }
    if (submitted && !events.some((e) => e.type === 'submitted')) events.push({ type: 'submitted', round: played, detail: 'FINAL' });
  } catch (error) {
    if (!(error instanceof RunStopped)) throw error;
    status = error.status;
    errorText = error.message;
    events.push({ type: status === 'refused' ? 'refused' : 'provider_error', round, detail: error.message });
  }

  if (!submitted && status === 'ok') {
    const last = [...transcript].reverse().find((m) => m.seat === 'subject' && m.text.trim() !== '');
    answer = last ? (finalAnswerIn(last.text) ?? last.text) : null;
    events.push({ type: 'round_limit', round: task.rounds, detail: 'no submission: the last message is the answer' });
  }
  let grading: Awaited<ReturnType<typeof gradeAnswer>> | undefined;
  if (task.check.type === 'judge' && status === 'ok' && answer !== null) {
    try {
      grading = await gradeAnswer(task, answer, ctx);
      judgeTokens.input += grading.tokens.input;
      judgeTokens.output += grading.tokens.output;
    } catch (error) {
      if (!(error instanceof JudgeFailed)) throw error;
      status = 'error';
      errorText = error.message;
      events.push({ type: 'provider_error', round, detail: error.message });
    }
  }
  const graded = grading === undefined ? undefined : grading.passed === null ? { unscored: UNREADABLE_GRADES } : grading.passed;
  if (typeof graded === 'object') events.push({ type: 'unscored', round: played, detail: graded.unscored });
  const outcome = runOutcome(task, arm, status === 'ok', answer, transcript, graded);
  const finished = new Date();
  return {
    schema_version: 1,
    run_id: runId,
    run_uuid: randomUUID(),
    model: ctx.subject.model,
    subject: { kind: 'model' },
    ...taskFields(task),
    arm,
    seed,
    status,
    error: errorText,
    ...outcome,
    answer,
    ...(grading ? { check_grades: grading.verdicts, check_agreed: grading.agreed } : {}),
    submitted,
    rounds_played: played,
    tokens,
    judge_tokens: judgeTokens,
    events,
    started_at: started.toISOString(),
    finished_at: finished.toISOString(),
    duration_ms: finished.getTime() - started.getTime(),
    messages: transcript,
  };
}
