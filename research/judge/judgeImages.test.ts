/**
 * The pieces of `--images attach` below the judge run: reading and checking one image (size cap, media
 * type by bytes, paths that leave the dataset), cache keys that follow the image bytes without holding
 * them, and image content parts through every provider the judge can use (the real openai client
 * directly and on the provider worker thread, against the local fake server; the offline responders).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../common/rubric';
import { startFakeOpenAI, type FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { encodePng } from '../../tests/support/png';
import { OfflineProvider } from '../../lib/llm/offlineProvider';
import { OpenAIProvider } from '../../lib/llm/openaiProvider';
import type { ChatMessage, CompletionRequest } from '../../lib/llm/provider';
import { ProviderThread, ThreadedOpenAIProvider } from '../../lib/llm/providerThread/providerThread';
import { modelCallKey, type ModelCall } from './cachedModelClient';
import { readDatasetSessions } from './datasetSource';
import { auditableMessages, loadImage, MAX_JUDGE_IMAGE_BYTES, type ImageSource } from './judgeImages';
import { OfflineJudgeProvider, offlineJudgeReply } from './offlineJudge';

const PNG = encodePng(3, 3, () => [10, 200, 10]);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tandem-judge-images-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const source = (file: string, extra: Partial<ImageSource> = {}): ImageSource => ({ fieldId: 'plot', label: 'Your plot', file, shownAs: 'plot.png', ...extra });

describe('loadImage', () => {
  it('reads a PNG: media type from the bytes, size, sha256 and base64', () => {
    writeFileSync(join(dir, 'plot.png'), PNG);
    expect(loadImage(source(join(dir, 'plot.png')))).toEqual({
      field: 'plot', label: 'Your plot', mediaType: 'image/png', bytes: PNG.length, sha256: sha(PNG), base64: PNG.toString('base64'),
    });
  });

  it('refuses a file over the 5 MB cap without reading it', () => {
    const big = Buffer.alloc(MAX_JUDGE_IMAGE_BYTES + 1);
    PNG.copy(big);
    writeFileSync(join(dir, 'big.png'), big);
    expect(() => loadImage(source(join(dir, 'big.png')))).toThrow(
      `field "plot" (Your plot): plot.png is too large to attach: ${MAX_JUDGE_IMAGE_BYTES + 1} bytes, at most ${MAX_JUDGE_IMAGE_BYTES} (5 MB)`,
    );
  });

  it('accepts only PNG, JPEG, WebP and GIF bytes, whatever the file is called', () => {
    writeFileSync(join(dir, 'plot.png'), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    expect(() => loadImage(source(join(dir, 'plot.png')))).toThrow('plot.png is not an accepted image (accepted: image/png, image/jpeg, image/webp, image/gif)');
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
    writeFileSync(join(dir, 'photo.png'), jpeg);
    expect(loadImage(source(join(dir, 'photo.png'))).mediaType).toBe('image/jpeg');
    writeFileSync(join(dir, 'empty.png'), '');
    expect(() => loadImage(source(join(dir, 'empty.png')))).toThrow('plot.png is empty');
  });

  it('names a missing file, a directory, and a source without a file', () => {
    expect(() => loadImage(source(join(dir, 'gone.png')))).toThrow('field "plot" (Your plot): image file not found: plot.png');
    expect(() => loadImage(source(dir))).toThrow('plot.png is not a file');
    expect(() => loadImage(source('', { file: null, missing: 'the path leaves the dataset directory' }))).toThrow('no image file for plot.png: the path leaves the dataset directory');
  });

  it('a dataset path outside the dataset directory is not read', () => {
    writeFileSync(join(dir, 'sessions.csv'), 'session_id,task\ns1,study-habits\n');
    writeFileSync(join(dir, 'artifacts.jsonl'), `${JSON.stringify({ session_id: 's1', version: 1, fields: { plot: '../outside.png', note: 'artifacts/s1/1-plot.png' }, files: [] })}\n`);
    const [material] = readDatasetSessions(dir);
    expect(material!.images!.plot).toMatchObject({ file: null, missing: 'the path leaves the dataset directory' });
    expect(material!.images!.note).toMatchObject({ file: join(dir, 'artifacts/s1/1-plot.png'), shownAs: 'artifacts/s1/1-plot.png' });
    expect(() => loadImage(material!.images!.plot!)).toThrow('no image file for ../outside.png: the path leaves the dataset directory');
  });
});

const imageMessages = (bytes: Buffer): ChatMessage[] => [
  { role: 'system', content: 'Grade it.' },
  { role: 'user', content: [{ type: 'text', text: 'The plot:' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${bytes.toString('base64')}` } }] },
];
const call = (messages: ChatMessage[]): ModelCall => ({ purpose: 'judge', model: 'm', messages, temperature: 0.7, maxTokens: 400, seed: 0, sampleIndex: 0 });
const info = { name: 'openai-compatible', url: 'http://x/v1' };

describe('cache keys and audit of image messages', () => {
  it('the key follows the image bytes; text-only keys are unchanged', () => {
    const other = encodePng(3, 3, () => [10, 200, 11]);
    expect(modelCallKey(info, call(imageMessages(PNG)))).toBe(modelCallKey(info, call(imageMessages(Buffer.from(PNG)))));
    expect(modelCallKey(info, call(imageMessages(PNG)))).not.toBe(modelCallKey(info, call(imageMessages(other))));
    // A text-only call keys exactly as before images existed (existing caches keep hitting).
    const text: ChatMessage[] = [{ role: 'user', content: 'Grade it.' }];
    const before = createHash('sha256')
      .update(canonicalJson({ purpose: 'judge', provider: info.name, providerUrl: info.url, model: 'm', messages: text, temperature: 0.7, maxTokens: 400, seed: 0 }))
      .digest('hex');
    expect(modelCallKey(info, call(text))).toBe(`${before}:0`);
  });

  it('auditable messages describe an image by media type, size and sha256, without its bytes', () => {
    const audited = JSON.stringify(auditableMessages(imageMessages(PNG)));
    expect(auditableMessages(imageMessages(PNG))[1]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'The plot:' }, { type: 'image', mediaType: 'image/png', bytes: PNG.length, sha256: sha(PNG) }],
    });
    expect(audited).not.toContain(PNG.toString('base64'));
  });
});

describe('image content parts through the providers', () => {
  let fake: FakeOpenAI;
  let thread: ProviderThread | null = null;
  beforeEach(async () => {
    fake = await startFakeOpenAI({ responder: () => 'Seen. Therefore, the final score is 3.' });
  });
  afterEach(async () => {
    await thread?.close();
    thread = null;
    await fake.close();
  });
  const request = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({ model: 'vision-1', messages: imageMessages(PNG), ...extra });

  it('OpenAIProvider sends them as given, streamed or not; usage counts the text parts', async () => {
    const provider = new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', maxAttempts: 1, timeoutMs: 5000 });
    const plain = await provider.complete(request());
    const streamed = await provider.complete(request({ onDelta: () => {} }));
    expect([plain.text, streamed.text]).toEqual(['Seen. Therefore, the final score is 3.', 'Seen. Therefore, the final score is 3.']);
    for (const r of fake.requests) expect(r.body.messages).toEqual(imageMessages(PNG));
    expect(plain.error).toBeUndefined();
  });

  it('the provider worker thread passes them through structured clone unchanged', async () => {
    thread = new ProviderThread();
    const provider = new ThreadedOpenAIProvider(thread, { baseURL: fake.url, apiKey: 'k', maxAttempts: 1, timeoutMs: 5000 });
    const deltas: string[] = [];
    const result = await provider.complete(request({ onDelta: (t) => deltas.push(t) }));
    expect(result).toMatchObject({ text: 'Seen. Therefore, the final score is 3.', finishReason: 'stop' });
    expect(deltas.join('')).toBe(result.text);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.messages).toEqual(imageMessages(PNG));
  });

  it('the offline judge and the offline assistant read the text parts', async () => {
    const judgeText = 'Evaluate.\n\n<<<DATA n1 artifact>>>\n## plot\n[image 1, attached after this text: the image uploaded for this field]\n<<<END n1 artifact>>>';
    const judged = await new OfflineJudgeProvider().complete({
      model: 'x', seed: 2,
      messages: [{ role: 'system', content: 'Grade.' }, { role: 'user', content: [{ type: 'text', text: judgeText }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }],
    });
    expect(judged.text).toBe(offlineJudgeReply('## plot\n[image 1, attached after this text: the image uploaded for this field]', 2));
    expect(judged.usage?.promptTokens).toBeGreaterThan(10);

    const offline = new OfflineProvider({ tokensPerSecond: 0, firstTokenDelayMs: 0 });
    const withParts = await offline.complete({ model: 'x', messages: [{ role: 'user', content: [{ type: 'text', text: 'Plan a trip to Lisbon' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }] });
    const asText = await offline.complete({ model: 'x', messages: [{ role: 'user', content: 'Plan a trip to Lisbon' }] });
    expect(withParts.text).toBe(asText.text);
    expect(withParts.usage).toEqual(asText.usage);
  });
});
