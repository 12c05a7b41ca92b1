import { afterEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAI, toolCall, type FakeOpenAI } from '../../tests/support/fakeOpenAI';
import { OpenAIProvider } from './openaiProvider';
import type { CompletionRequest, ToolDefinition } from './provider';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const readFile: ToolDefinition = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } };
const ask = (extra: Partial<CompletionRequest> = {}): CompletionRequest => ({ model: 'gpt-test-1', messages: [{ role: 'user', content: 'Check the log.' }], ...extra });

describe.each([['streamed', true], ['not streamed', false]] as const)('tool calls, %s', (_name, streamed) => {
  async function provider(): Promise<OpenAIProvider> {
    fake = await startFakeOpenAI();
    return new OpenAIProvider({ baseURL: fake.url, apiKey: 'k', maxAttempts: 1 });
  }
  const stream = (): Partial<CompletionRequest> => (streamed ? { onDelta: () => {} } : {});

  it('sends tools and tool_choice, and returns the calls with their arguments joined', async () => {
    const p = await provider();
    fake!.script(reply('Reading it.', { toolCalls: [toolCall('read_file', { path: 'a.log' }, 'call_1'), toolCall('read_file', { path: 'b.log' }, 'call_2')] }));
    const res = await p.complete(ask({ ...stream(), tools: [readFile], toolChoice: 'auto' }));
    expect(fake!.requests[0]!.body.tools).toEqual([readFile]);
    expect(fake!.requests[0]!.body.tool_choice).toBe('auto');
    expect(res.text).toBe('Reading it.');
    expect(res.finishReason).toBe('tool_calls');
    expect(res.toolCalls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.log"}' } },
      { id: 'call_2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.log"}' } },
    ]);
  });

  it('keeps malformed arguments verbatim, carries refusals, and sends no tools field when none are offered', async () => {
    const p = await provider();
    fake!.script(reply('', { toolCalls: [toolCall('read_file', '{"path": "a.lo', 'call_9')] }), reply('', { refusal: 'I cannot help with that.' }));
    const bad = await p.complete(ask({ ...stream(), tools: [readFile] }));
    expect(bad.toolCalls?.[0]?.function.arguments).toBe('{"path": "a.lo');
    const refused = await p.complete(ask(stream()));
    expect(refused.refusal).toBe('I cannot help with that.');
    expect(refused.toolCalls).toBeUndefined();
    expect('tools' in fake!.requests[1]!.body).toBe(false);
  });

  it('sends an assistant tool_calls message and the tool result back in the conversation', async () => {
    const p = await provider();
    fake!.script(reply('Done.'));
    const call = { id: 'call_1', type: 'function' as const, function: { name: 'read_file', arguments: '{}' } };
    await p.complete(ask({ ...stream(), tools: [readFile], messages: [
      { role: 'user', content: 'Go' }, { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: 'file text' },
    ] }));
    expect(fake!.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: 'file text' },
    ]);
  });
});
