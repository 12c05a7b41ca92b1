/**
 * The wizard-agent field of a group agent (common/group.ts GroupAgentAssistant): absent in every shipped study (they
 * load unchanged, spoken by the model), `assistant: { mode: wizard }` makes a researcher speak as the agent, and a
 * mode the group rooms do not have (review) is named as file:line: field: message.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spokenByWizard } from '../../common/group';
import { ConfigError, loadConfig } from './studyConfig';

const ROOT = path.resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function withDemo(edit: (text: string) => string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-wizard-agent-'));
  temps.push(dir);
  const dirs = { studiesDir: path.join(dir, 'studies'), surveysDir: path.join(dir, 'surveys') };
  fs.cpSync(path.join(ROOT, 'studies'), dirs.studiesDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'surveys'), dirs.surveysDir, { recursive: true });
  const file = path.join(dirs.studiesDir, 'group-demo.yaml');
  const before = fs.readFileSync(file, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error('test setup: the edit changed nothing');
  fs.writeFileSync(file, after);
  return { dirs, file };
}

const wizardBlock = (mode: string) => (text: string) =>
  text.replace('        max_replies: 20\n', `        max_replies: 20\n        assistant:\n          mode: ${mode}\n          canned_replies: ["Shall we vote?"]\n`);

describe('a group agent spoken by a researcher', () => {
  it('is the model\'s unless the study file says wizard', () => {
    const shipped = loadConfig({ studiesDir: path.join(ROOT, 'studies'), surveysDir: path.join(ROOT, 'surveys') }).studies.get('group-demo')!;
    expect(shipped.conditions[0]!.agents!.map(spokenByWizard)).toEqual([false]);
    const { dirs } = withDemo(wizardBlock('wizard'));
    const agent = loadConfig(dirs).studies.get('group-demo')!.conditions[0]!.agents![0]!;
    expect(spokenByWizard(agent)).toBe(true);
    expect(agent.assistant).toEqual({ mode: 'wizard', canned_replies: ['Shall we vote?'] });
  });

  it('names file, line and field of a mode group rooms do not have', () => {
    const { dirs, file } = withDemo(wizardBlock('review'));
    let problems: ConfigError['problems'] = [];
    try {
      loadConfig(dirs);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      problems = (err as ConfigError).problems;
    }
    expect(problems).toHaveLength(1);
    const line = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.includes('mode: review')) + 1;
    expect(problems[0]).toMatchObject({ field: 'conditions.0.agents.0.assistant.mode', line });
    expect(problems[0]!.file).toMatch(/group-demo\.yaml$/);
    expect(problems[0]!.message).toMatch(/model|wizard/);
  });
});
