/**
 * Chat details in Debian Chromium against a real server and a local OpenAI-compatible server: an assistant
 * code block has a copy button that puts the code on the clipboard; at the message limit the refused message
 * goes back into the box instead of being lost; a file that claims to be a PNG but is not is refused with a
 * sentence that says so. At 1280 px and on a 390 px phone (two browser contexts). The study is
 * studies/visualization.yaml with `chat.max_user_messages: 1`. Screenshots: test-results/chat-*.png.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/fakeOpenAI';
import { startServerWithFakeModel, type ServerWithFakeModel } from '../support/wizardTestSupport';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SHOTS = path.join(ROOT, 'test-results');
const CODE = "import pandas as pd\ndf = pd.read_csv('study_habits.csv')";

let t: ServerWithFakeModel;
let studiesDir: string;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  studiesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tandem-chat-details-'));
  const study = fs.readFileSync(path.join(ROOT, 'studies/visualization.yaml'), 'utf8').replace('chat:\n  max_message_chars: 4000', 'chat:\n  max_message_chars: 4000\n  max_user_messages: 1');
  expect(study).toContain('max_user_messages: 1');
  fs.writeFileSync(path.join(studiesDir, 'visualization.yaml'), study);
  fs.cpSync(path.join(ROOT, 'studies/materials'), path.join(studiesDir, 'materials'), { recursive: true });
  t = await startServerWithFakeModel({
    prefix: 'tandem-chat-details-',
    studiesDir,
    model: { responder: () => reply(`Load it like this:\n\n\`\`\`python\n${CODE}\n\`\`\``) },
  });
}, 180_000);

afterAll(async () => {
  await t?.close();
  fs.rmSync(studiesDir, { recursive: true, force: true });
});

async function inWorkspace(viewport: { width: number; height: number }, pid: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await t.browser.newContext({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  const page = await context.newPage();
  await page.goto(`${t.url}/study/visualization?PROLIFIC_PID=${pid}`);
  await page.getByRole('button', { name: 'I agree and want to take part' }).click();
  await page.getByRole('button', { name: 'Start the task' }).click();
  await page.getByRole('heading', { name: 'Chat with' }).waitFor();
  return { context, page };
}

describe('chat details', () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    it(`copy a code block, keep a message refused at the limit, refuse a non-image upload in words (${viewport.width} px)`, async () => {
      const { context, page } = await inWorkspace(viewport, `chat-details-${viewport.width}`);
      const box = page.getByLabel('Message the assistant');
      await box.fill('How do I load the data?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const answer = page.locator('.messages li.assistant[data-status="complete"]').first();
      await answer.waitFor({ timeout: 20_000 });
      const copy = answer.getByRole('button', { name: 'Copy the code' });
      expect(await answer.locator('pre code').evaluate((el) => getComputedStyle(el).fontFamily)).toContain('monospace');
      await copy.click();
      await answer.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);

      // The second message is over the study's limit of one: refused, and put back in the box.
      const second = 'And how do I plot sleep against grades?';
      await box.fill(second);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'You have used all the messages' }).waitFor();
      expect(await box.inputValue()).toBe(second);
      await page.screenshot({ path: path.join(SHOTS, `chat-limit-${viewport.width}.png`) });

      // A text file named plot.png, sent as image/png: the server reads its content and refuses it.
      await page.getByLabel('Your plot (image)').setInputFiles({ name: 'plot.png', mimeType: 'image/png', buffer: Buffer.from('not an image at all') });
      const refusal = page.getByText(/This file is not a PNG, JPEG, WEBP or GIF image/);
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain('so it was not uploaded');
      expect(await page.getByText('Some of what you entered could not be accepted').count()).toBe(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await refusal.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `chat-upload-refused-${viewport.width}.png`) });
      await context.close();
    }, 120_000);
  }
});
