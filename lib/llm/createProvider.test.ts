import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, type FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { createProvider } from './createProvider';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

function captureLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: pino({}, { write: (line: string) => void lines.push(line) }), lines };
}

describe('createProvider', () => {
  it('uses OPENAI_BASE_URL / OPENAI_API_KEY from the environment for provider "openai"', async () => {
    fake = await startFakeOpenAI();
    fake.script(reply('from the endpoint', { model: 'gpt-4o-mini-2024-07-18' }));
    const created = createProvider({ provider: 'openai', maxAttempts: 1 }, { env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-env' } });
    expect(created).toMatchObject({ kind: 'openai', fellBackToOffline: false, reason: null });
    const res = await created.provider.complete({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.text).toBe('from the endpoint');
    expect(res.provider).toBe('openai-compatible');
    expect(res.providerUrl).toBe(fake.url);
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-env');
  });

  it('lets the config override the environment', async () => {
    fake = await startFakeOpenAI();
    const created = createProvider({ provider: 'openai', baseURL: fake.url, apiKey: 'sk-config' }, { env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'sk-env' } });
    const res = await created.provider.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.error).toBeUndefined();
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-config');
  });

  it('falls back to the offline assistant without a key, flags it and logs a warning once', async () => {
    const { logger, lines } = captureLogger();
    const created = createProvider({ provider: 'openai', offline: { tokensPerSecond: 0, firstTokenDelayMs: 0 } }, { env: {}, logger });
    createProvider({ provider: 'openai' }, { env: { OPENAI_API_KEY: '  ' }, logger });
    expect(created.kind).toBe('offline');
    expect(created.fellBackToOffline).toBe(true);
    expect(created.reason).toMatch(/OPENAI_API_KEY/);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 40, requested: 'openai', used: 'offline' });
    const res = await created.provider.complete({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.provider).toBe('offline');
    expect(res.model).toBe('tandem-offline-demo-1');
  });

  it('builds the offline assistant for provider "offline" without a warning', () => {
    const { logger, lines } = captureLogger();
    const created = createProvider({ provider: 'offline' }, { env: { OPENAI_API_KEY: 'sk' }, logger });
    expect(created).toMatchObject({ kind: 'offline', fellBackToOffline: false });
    expect(created.provider.name).toBe('offline');
    expect(lines).toHaveLength(0);
  });
});
