import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/studyFiles/studyConfig';
import { assistantOf } from '../../common/assistantMode';
import { Condition } from '../../common/study';
import { REPO_ROOT, wizardStudiesDir } from '../../tests/support/wizardTestSupport';

const SURVEYS = path.join(REPO_ROOT, 'surveys');

describe('the assistant block of a condition', () => {
  it('loads the demo: review and wizard with their timeouts, fallback and canned replies; other studies stay model', () => {
    const config = loadConfig({ studiesDir: path.join(REPO_ROOT, 'studies'), surveysDir: SURVEYS });
    const [reviewed, wizard] = config.studies.get('wizard-demo')!.conditions;
    expect(assistantOf(reviewed!)).toMatchObject({ mode: 'review', timeout_seconds: 90, show_model_draft: false });
    expect(assistantOf(reviewed!).fallback.holding_message.length).toBeGreaterThan(0);
    expect(assistantOf(wizard!)).toMatchObject({ mode: 'wizard', show_model_draft: true, timeout_seconds: 120 });
    expect(assistantOf(wizard!).canned_replies).toHaveLength(2);
    for (const c of config.studies.get('travel-planning')!.conditions) expect(assistantOf(c).mode).toBe('model');
  });

  it('names the file, line and field of a bad value', () => {
    const dir = wizardStudiesDir({ review: { mode: 'robot' }, wizard: { timeout_seconds: 1 } });
    let problems: ConfigError['problems'] = [];
    try {
      loadConfig({ studiesDir: dir, surveysDir: SURVEYS });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      problems = (err as ConfigError).problems;
    }
    const mode = problems.find((p) => p.file.endsWith('woz-review.yaml'))!;
    expect(mode.field).toBe('conditions.0.assistant.mode');
    const lines = fs.readFileSync(path.join(dir, 'woz-review.yaml'), 'utf8').split('\n');
    expect(lines[mode.line! - 1]).toContain('robot');
    expect(problems.find((p) => p.file.endsWith('woz-wizard.yaml'))!.field).toBe('conditions.0.assistant.timeout_seconds');
  });

  it('refuses a researcher in a teamwork seat (its teammates answer)', () => {
    const parsed = Condition.safeParse({ id: 'seat', provider: 'teamwork', teamwork: { task: 'teamwork/tasks/suite/info-flood-route.yaml', arm: 'test' }, assistant: { mode: 'review' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.path.join('.'))).toEqual(['assistant.mode']);
  });
});
