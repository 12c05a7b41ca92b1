/**
 * OFFLINE REFERENCE MODELS — no key, no network — so a fresh clone runs the whole protocol, and tests
 * can show that scores separate teammates that behave differently *by construction*. They read the
 * task and arm from the system prompt (matched against every task's prompt) and answer from the task's
 * `reference` block:
 *
 *  - offline-steady    asks, holds firm and reports: says the task's `reference.steady` lines (one per
 *                      round; they carry the cues of the "seeing the problem" labels), uses the task's
 *                      first tool once, then submits the right answer, in every arm.
 *  - offline-pushover  goes along with the teammate: right answer alone, agrees and submits the right
 *                      answer in calm (nothing goes wrong), submits the pushed answer in test without
 *                      ever naming the problem ("missed it").
 *  - offline-wavering  sees it, then gives in: as steady alone and in calm; in test it names the
 *                      problem (steady line 1), then submits the pushed answer ("gave in").
 *  - offline-judge     labels a message with the first label whose cues it contains, else the default;
 *                      grades an answer for a `judge` check: pass when it contains one of the check's cues.
 *  - offline-partner   an LLM partner that always says the same neutral line.
 *
 * Every result names provider "teamwork-offline" and the model above, so reference runs never pass for
 * real ones.
 */
import { countTokens } from '../../../common/tokens';
import type { TeamworkArm, TeamworkTask } from '../../../common/teamworkTask';
import { messageText, type CompletionRequest, type CompletionResult, type LlmProvider, type ToolCall } from '../../../lib/llm/provider';
import { promptTokenCount } from '../../../lib/llm/tokens';
import { cuesPass } from '../checks/outcomeCheck';
import { GRADE_PROMPT_START, incomingText, NOTHING_NEW, unfenced, subjectSystemPrompt, submitTool, FINAL_MARKER } from '../runner/prompts';
import { environmentPosts, nextScriptedLine } from '../runner/seats';

export const OFFLINE_PROVIDER = 'teamwork-offline';
export const OFFLINE_SUBJECTS = ['offline-steady', 'offline-pushover', 'offline-wavering'] as const;
export type OfflineSubject = (typeof OFFLINE_SUBJECTS)[number];
export const OFFLINE_JUDGE = 'offline-judge';
export const OFFLINE_PARTNER = 'offline-partner';
export const OFFLINE_MODELS: readonly string[] = [...OFFLINE_SUBJECTS, OFFLINE_JUDGE, OFFLINE_PARTNER];

export const PARTNER_LINE = "I hear you. Let's keep going. What do you need from me?";
const AGREE = "Sounds good, we'll do it your way.";
const FOLD = "Fair enough, we'll do it your way after all.";

interface Reply {
  text: string;
  toolCalls?: ToolCall[];
}

function result(name: string, request: CompletionRequest, reply: Reply): CompletionResult {
  const promptTokens = promptTokenCount(request.messages);
  const completionTokens = countTokens(reply.text) + (reply.toolCalls ?? []).reduce((n, c) => n + countTokens(c.function.arguments), 0);
  request.onDelta?.(reply.text);
  return {
    text: reply.text, usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }, provider: OFFLINE_PROVIDER, model: name,
    providerUrl: null, systemFingerprint: null, finishReason: reply.toolCalls ? 'tool_calls' : 'stop', ttftMs: null, latencyMs: 0, attempts: 1, interrupted: false,
    ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
  };
}

/** Offline stand-ins for the model under test. */
export class OfflineSubjectModel implements LlmProvider {
  readonly name = OFFLINE_PROVIDER;
  private readonly byPrompt = new Map<string, Array<{ task: TeamworkTask; arm: TeamworkArm }>>();

  constructor(private readonly behaviour: OfflineSubject, tasks: readonly TeamworkTask[]) {
    for (const task of tasks) {
      for (const arm of ['alone', 'calm', 'test'] as const) {
        const prompt = subjectSystemPrompt(task, arm);
        this.byPrompt.set(prompt, [...(this.byPrompt.get(prompt) ?? []), { task, arm }]);
      }
    }
  }

  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const system = request.messages[0]?.role === 'system' ? messageText(request.messages[0]) : '';
    const found = pickArm(this.byPrompt.get(system) ?? [], request);
    if (!found?.task.reference) return result(this.behaviour, request, { text: `${FINAL_MARKER} (offline model: unknown task or no reference answers)` });
    return result(this.behaviour, request, this.reply(found.task, found.arm, request));
  }

  private reply(task: TeamworkTask, arm: TeamworkArm, request: CompletionRequest): Reply {
    const ref = task.reference!;
    const round = request.messages.filter((m) => m.role === 'user').length;
    const afterTool = request.messages.at(-1)?.role === 'tool';
    const steadyLike = this.behaviour === 'offline-steady' || (this.behaviour === 'offline-wavering' && arm !== 'test');
    if (steadyLike) {
      const helper = task.tools.find((t) => !t.submit);
      if (round === 1 && helper && !afterTool && request.toolChoice !== 'none') {
        return { text: '', toolCalls: [{ id: `call_offline_${round}`, type: 'function', function: { name: helper.name, arguments: '{}' } }] };
      }
      if (arm === 'alone') return this.submit(task, 'I have what I need.', ref.answer, round);
      const submitRound = Math.min(ref.steady.length + 1, task.rounds);
      const line = ref.steady[Math.min(round, ref.steady.length) - 1]!;
      return round >= submitRound ? this.submit(task, round <= ref.steady.length ? line : 'Here is my answer.', ref.answer, round) : { text: line };
    }
    if (arm === 'alone') return this.submit(task, 'I have what I need.', ref.answer, round);
    const submitRound = Math.min(2, task.rounds);
    const first = this.behaviour === 'offline-wavering' ? ref.steady[0]! : AGREE;
    const answer = arm === 'calm' ? ref.answer : ref.gives_in;
    if (round < submitRound) return { text: first };
    return this.submit(task, round === 1 ? first : this.behaviour === 'offline-wavering' ? FOLD : AGREE, answer, round);
  }

  private submit(task: TeamworkTask, say: string, answer: string, round: number): Reply {
    const tool = submitTool(task);
    if (!tool) return { text: `${say}\n\n${FINAL_MARKER} ${answer}` };
    let args: string;
    if (tool.answer_arg !== undefined) args = JSON.stringify({ [tool.answer_arg]: answer });
    else args = answer;
    return { text: say, toolCalls: [{ id: `call_offline_submit_${round}`, type: 'function', function: { name: tool.name, arguments: args } }] };
  }
}

/**
 * Briefs may be the same in two arms (the model is not told which arm it is in), so the arm is read from
 * what the first round brought: nothing for alone, else the arm whose round-1 scripted and environment
 * posts all appear in the first user message (the most of them; test on a tie).
 */
function pickArm(candidates: ReadonlyArray<{ task: TeamworkTask; arm: TeamworkArm }>, request: CompletionRequest): { task: TeamworkTask; arm: TeamworkArm } | undefined {
  if (candidates.length <= 1) return candidates[0];
  const firstUser = request.messages.find((m) => m.role === 'user');
  const heard = firstUser ? messageText(firstUser) : '';
  let best: { task: TeamworkTask; arm: TeamworkArm; matched: number } | undefined;
  for (const c of candidates) {
    let matched: number;
    if (c.arm === 'alone') matched = heard === NOTHING_NEW ? 1_000 : -1;
    else {
      const arm = c.arm;
      const posts = environmentPosts(c.task, arm, 1);
      for (const mate of c.task.teammates) {
        if (mate.kind !== 'scripted' || !mate.arms.includes(arm)) continue;
        const i = nextScriptedLine(mate, arm, new Set(), { round: 1, lastLabel: null, everLabels: new Set() });
        if (i !== null) posts.push({ speaker: mate.name, text: mate.lines[i]!.text });
      }
      const all = posts.every((p) => heard.includes(`${p.speaker}: ${p.text}`));
      matched = all ? posts.length + (arm === 'test' ? 0.5 : 0) : -1;
      if (posts.length === 0 && heard !== incomingText([])) matched = 0;
    }
    if (!best || matched > best.matched) best = { ...c, matched };
  }
  return best;
}

/** The message and task a judge prompt carries (prompts.ts judgePrompt). */
export function judgedMessage(request: CompletionRequest): { taskId: string | null; message: string } {
  const text = request.messages.filter((m) => m.role === 'user').map(messageText).join('\n');
  return { taskId: /^Task: ([a-z0-9_-]+)/m.exec(text)?.[1] ?? null, message: unfenced('MESSAGE', text) ?? '' };
}

/** The label the offline judge gives `message`: the first label (in file order) with a cue in it, else the default. */
export function cueLabel(task: TeamworkTask, message: string): string {
  const lower = message.toLowerCase();
  for (const [name, label] of Object.entries(task.labels.set)) if (label.cues.some((c) => lower.includes(c.toLowerCase()))) return name;
  return task.labels.default;
}

export class OfflineJudgeModel implements LlmProvider {
  readonly name = OFFLINE_PROVIDER;
  private readonly tasks: Map<string, TeamworkTask>;
  constructor(tasks: readonly TeamworkTask[]) {
    this.tasks = new Map(tasks.map((t) => [t.id, t]));
  }
  async complete(request: CompletionRequest): Promise<CompletionResult> {
    const { taskId, message } = judgedMessage(request);
    const task = taskId ? this.tasks.get(taskId) : undefined;
    const grading = messageText(request.messages[0]!).startsWith(GRADE_PROMPT_START);
    if (grading) return result(OFFLINE_JUDGE, request, { text: task?.check.type === 'judge' ? (cuesPass(task.check.cues, message) ? 'pass' : 'fail') : 'unknown_task' });
    return result(OFFLINE_JUDGE, request, { text: task ? cueLabel(task, message) : 'unknown_task' });
  }
}

export class OfflinePartnerModel implements LlmProvider {
  readonly name = OFFLINE_PROVIDER;
  async complete(request: CompletionRequest): Promise<CompletionResult> {
    return result(OFFLINE_PARTNER, request, { text: PARTNER_LINE });
  }
}
