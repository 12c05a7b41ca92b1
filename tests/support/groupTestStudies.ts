/**
 * Study files for the group tests: the shipped studies and surveys copied to a temp folder, plus group studies with
 * an offline agent that answers every message, a lobby that starts smaller or releases (one after 5 s, for the browser), a quota on a URL parameter,
 * and each dropout policy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './integrationHarness';

const demo = () => fs.readFileSync(path.join(ROOT, 'studies', 'group-demo.yaml'), 'utf8');

function variant(edits: [string | RegExp, string][]): string {
  let text = demo();
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`group test study: ${String(from)} not in group-demo.yaml`);
    text = next;
  }
  return text;
}

const agentEveryMessage: [string | RegExp, string][] = [
  ['speaks: { every_n_messages: 3 }', 'speaks: every_message'],
  [/      - name: Facilitator\n        provider: openai/, '      - name: Facilitator\n        provider: offline'],
];

export function groupStudyDirs(): { studiesDir: string; surveysDir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-group-studies-'));
  const studiesDir = path.join(dir, 'studies');
  const surveysDir = path.join(dir, 'surveys');
  fs.cpSync(path.join(ROOT, 'studies'), studiesDir, { recursive: true });
  fs.cpSync(path.join(ROOT, 'surveys'), surveysDir, { recursive: true });
  const write = (id: string, text: string) => fs.writeFileSync(path.join(studiesDir, `${id}.yaml`), text);
  write('group-room', variant([...agentEveryMessage, ['dropout: { grace_seconds: 30, policy: continue }', 'dropout: { grace_seconds: 5, policy: replace_with_agent }']]));
  write('group-end', variant([...agentEveryMessage, ['dropout: { grace_seconds: 30, policy: continue }', 'dropout: { grace_seconds: 5, policy: end_group }'], ['    lobby_timeout: L0GRP2026', '    lobby_timeout: L0GRP2026\n    group_ended: E0GRP2026']]));
  write('group-release', variant([['on_timeout: start_smaller', 'on_timeout: release']]));
  write('group-release-fast', variant([['lobby: { timeout_seconds: 30, on_timeout: start_smaller }', 'lobby: { timeout_seconds: 5, on_timeout: release }']]));
  write(
    'group-quota',
    variant([['form_by: arrival', 'form_by: { quota: { source: url_param, key: expertise, seats: { expert: 1, novice: 2 } } }']]),
  );
  return { studiesDir, surveysDir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
