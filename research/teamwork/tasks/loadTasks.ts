/**
 * Loads teamwork task files (YAML) from a directory: each file is validated with the zod schema
 * (common/teamworkTask.ts) and the load-time rules (taskRules.ts); every problem of every file is
 * reported at once as `file:line: field: message`, and nothing runs while any remains.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { TeamworkTaskFile, type TeamworkTask } from '../../../common/teamworkTask';
import { validateYaml } from '../../../common/yamlSource';
import { taskRuleProblems } from './taskRules';

export interface TaskProblem {
  file: string;
  line: number | null;
  field: string;
  message: string;
}

export const formatProblem = (p: TaskProblem): string => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.field ? `${p.field}: ` : ''}${p.message}`;

export class TaskFileError extends Error {
  constructor(readonly problems: TaskProblem[]) {
    super(`invalid task file${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
    this.name = 'TaskFileError';
  }
}

/** Parses one task file's text; `display` is the name problems carry. */
export function parseTaskText(text: string, display: string): { task?: TeamworkTask; problems: TaskProblem[] } {
  const result = validateYaml(text, TeamworkTaskFile);
  if (!result.ok) return { problems: result.problems.map((p) => ({ file: display, line: p.line, field: p.path.map(String).join('.'), message: p.message })) };
  const problems = taskRuleProblems(result.data).map((p) => ({ file: display, line: result.lineOf(p.path), field: p.path.map(String).join('.'), message: p.message }));
  const stem = basename(display).replace(/\.ya?ml$/, '');
  if (stem !== result.data.id) problems.unshift({ file: display, line: result.lineOf(['id']), field: 'id', message: `"${result.data.id}" differs from the file name "${stem}"` });
  if (problems.length > 0) return { problems };
  return { task: { ...result.data, file: display, hash: createHash('sha256').update(text).digest('hex') }, problems: [] };
}

/** Every *.yaml / *.yml task under `dir` (sorted by id); throws TaskFileError listing all problems. */
export function loadTaskDir(dir: string): TeamworkTask[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new TaskFileError([{ file: dir, line: null, field: '', message: 'is not a directory' }]);
  const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
  if (files.length === 0) throw new TaskFileError([{ file: dir, line: null, field: '', message: 'holds no task files (*.yaml)' }]);
  const tasks: TeamworkTask[] = [];
  const problems: TaskProblem[] = [];
  for (const name of files) {
    const path = join(dir, name);
    const display = relative(process.cwd(), path) || path;
    const parsed = parseTaskText(readFileSync(path, 'utf8'), display);
    problems.push(...parsed.problems);
    if (parsed.task) {
      if (tasks.some((t) => t.id === parsed.task!.id)) problems.push({ file: display, line: null, field: 'id', message: `task id "${parsed.task.id}" is used by another file` });
      else tasks.push(parsed.task);
    }
  }
  if (problems.length > 0) throw new TaskFileError(problems);
  return tasks.sort((a, b) => a.id.localeCompare(b.id));
}
