/**
 * The teamwork task of a "same seat" study condition: loaded and checked like any task file
 * (loadTasks.ts), plus what a person in the seat cannot do. A participant answers in the browser chat and
 * submits through the study's artifact form, so a task whose model would call tools other than `submit`
 * (read_file, run_tests…) cannot be played in the seat and is refused at load.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { TeamworkTask } from '../../../common/teamworkTask';
import { parseTaskText, type TaskProblem } from '../tasks/loadTasks';

/** The Tandem folder, where the shipped tasks (teamwork/tasks/) live. */
const TANDEM_ROOT = resolve(import.meta.dirname, '../../..');

/**
 * Where a condition's `teamwork.task` points: `research/teamwork/…` is a task shipped with Tandem (e.g.
 * teamwork/tasks/suite/info-flood-route.yaml), any other relative path starts at the studies directory
 * (a study's own task, e.g. materials/my-task.yaml), and an absolute path is itself.
 */
export function seatTaskPath(studiesDir: string, taskPath: string): string {
  if (isAbsolute(taskPath)) return taskPath;
  return taskPath.startsWith('teamwork/') ? resolve(TANDEM_ROOT, taskPath) : resolve(studiesDir, taskPath);
}

/** The task at `file`, or the problems that keep it out of the seat (`display` names the task file in them). */
export function loadSeatTask(file: string, display = file): { task?: TeamworkTask; problems: TaskProblem[] } {
  if (!existsSync(file) || !statSync(file).isFile()) return { problems: [{ file: display, line: null, field: '', message: 'teamwork task file not found' }] };
  const parsed = parseTaskText(readFileSync(file, 'utf8'), display);
  if (!parsed.task) return parsed;
  const tools = parsed.task.tools.filter((t) => !t.submit);
  if (tools.length > 0)
    return { problems: [{ file: display, line: null, field: '', message: `a participant cannot call tools in the chat (${tools.map((t) => t.name).join(', ')}): only tasks without tools other than submit can be played in the seat` }] };
  return parsed;
}

const loaded = new Map<string, TeamworkTask>();

/** The task for a resolved path, read once per process (the server validated it at start-up). */
export function seatTask(file: string): TeamworkTask {
  let task = loaded.get(file);
  if (!task) {
    const result = loadSeatTask(file);
    if (!result.task) throw new Error(`teamwork task ${file}: ${result.problems.map((p) => `${p.field ? `${p.field}: ` : ''}${p.message}`).join('; ')}`);
    task = result.task;
    loaded.set(file, task);
  }
  return task;
}
