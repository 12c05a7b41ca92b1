/**
 * Carrying out the subject's tool calls with the task's canned, deterministic results. A call that
 * cannot be carried out (unknown tool, arguments that are not a JSON object) is malformed: the model
 * gets an error result and the run records an event; nothing throws.
 */
import type { TaskTool, TeamworkTask } from '../../../common/teamworkTask';
import type { ToolCall, ToolDefinition } from '../../../lib/llm/provider';
import { deepEqual } from '../checks/outcomeCheck';

export function toolDefinitions(task: TeamworkTask): ToolDefinition[] | undefined {
  if (task.tools.length === 0) return undefined;
  return task.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

export type ToolOutcome =
  | { kind: 'result'; tool: TaskTool; text: string }
  | { kind: 'submit'; tool: TaskTool; answer: string; text: string }
  | { kind: 'malformed'; reason: string; text: string };

function parseArguments(raw: string): Record<string, unknown> | string {
  if (raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return `arguments are not valid JSON (${(error as Error).message})`;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : 'arguments are not a JSON object';
}

export function carryOutToolCall(task: TeamworkTask, call: ToolCall): ToolOutcome {
  const tool = task.tools.find((t) => t.name === call.function.name);
  if (!tool) return { kind: 'malformed', reason: `unknown tool "${call.function.name}"`, text: `error: there is no tool called "${call.function.name}"` };
  const args = parseArguments(call.function.arguments);
  if (typeof args === 'string') return { kind: 'malformed', reason: `${tool.name}: ${args}`, text: `error: ${args}` };
  if (tool.submit) {
    const answer = tool.answer_arg !== undefined ? args[tool.answer_arg] : undefined;
    if (tool.answer_arg !== undefined && answer === undefined) {
      return { kind: 'malformed', reason: `${tool.name}: missing argument "${tool.answer_arg}"`, text: `error: missing argument "${tool.answer_arg}"` };
    }
    const text = tool.answer_arg !== undefined ? (typeof answer === 'string' ? answer : JSON.stringify(answer)) : call.function.arguments;
    return { kind: 'submit', tool, answer: text, text: tool.result ?? 'Submitted.' };
  }
  const matched = tool.cases.find((c) => Object.entries(c.args).every(([k, v]) => deepEqual(args[k], v)));
  return { kind: 'result', tool, text: matched?.result ?? tool.result ?? '' };
}
