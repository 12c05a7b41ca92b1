import { describe, expect, it } from 'vitest';
import { OFFLINE_MODEL, OfflineProvider } from './offlineProvider';
import type { ChatMessage } from './provider';
import { countTokens } from '../../common/tokens';

const VIZ_TASK = [
  'You are a helpful assistant for data analysis.',
  '',
  '## Your task',
  'The file **study_habits.csv** describes 60 students: their course section, hours studied in the week',
  'before the exam, average hours of sleep, coffees per day, and exam score (0–100).',
  '1. State one hypothesis about what relates to exam scores, write analysis code and plot it.',
].join('\n');
const TRAVEL_TASK = 'You are a travel assistant.\n\nPlan a **three-day trip** to a European city of your choice for two adults with a total budget of **€900**. One of you is vegetarian and neither of you likes early mornings.';

const fast = (): OfflineProvider => new OfflineProvider({ tokensPerSecond: 0, firstTokenDelayMs: 0 });
const convo = (system: string, ...turns: string[]): ChatMessage[] => [
  { role: 'system', content: system },
  ...turns.map((content, i): ChatMessage => ({ role: i % 2 === 0 ? 'user' : 'assistant', content })),
];

describe('OfflineProvider', () => {
  it('is deterministic: the same conversation gets the same reply, a different one a different reply', async () => {
    const p = fast();
    const a = await p.complete({ model: 'gpt-4o-mini', messages: convo(VIZ_TASK, 'Hi', 'Which variables?', 'sleep and exam score') });
    const b = await new OfflineProvider({ tokensPerSecond: 0, firstTokenDelayMs: 0 }).complete({ model: 'x', messages: convo(VIZ_TASK, 'Hi', 'Which variables?', 'sleep and exam score') });
    const c = await p.complete({ model: 'x', messages: convo(TRAVEL_TASK, 'Hi', 'Which city?', 'Lisbon please') });
    expect(a.text).toBe(b.text);
    expect(a.text).not.toBe(c.text);
  });

  it('asks a clarifying question grounded in the task on the first user turn', async () => {
    const res = await fast().complete({ model: 'x', messages: convo(TRAVEL_TASK, 'Can you help me plan this?') });
    expect(res.text).toContain('?');
    expect(res.text).toContain('three-day trip');
    expect(res.text).toContain('€900');
    expect(res.text).not.toContain('**Day 1**');
    const viz = await fast().complete({ model: 'x', messages: convo(VIZ_TASK, 'hello') });
    expect(viz.text).toMatch(/which relationship interests you most/i);
    expect(viz.text).toContain('exam_score');
  });

  it('drafts a day-by-day itinerary using the task and the participant’s choices', async () => {
    const res = await fast().complete({ model: 'x', messages: convo(TRAVEL_TASK, 'Help?', 'Which city?', 'We want to go to Lisbon.') });
    expect(res.text).toContain('3-day plan for Lisbon');
    expect(res.text).toContain('**Day 3**');
    expect(res.text).not.toContain('**Day 4**');
    expect(res.text).toContain('vegetarian');
    expect(res.text).toContain('10:00'); // no early mornings
  });

  it('drafts a hypothesis and pandas/matplotlib code from the columns in the task, following the participant', async () => {
    const res = await fast().complete({ model: 'x', messages: convo(VIZ_TASK, 'Hi', 'What interests you?', 'I think sleep matters') });
    expect(res.text).toContain('**Hypothesis.**');
    expect(res.text).toContain('pd.read_csv("study_habits.csv")');
    expect(res.text).toContain('df["average_hours_sleep"]');
    expect(res.text).toContain('"exam_score"');
    expect(res.text).toContain('plt.subplots');
  });

  it('streams in several deltas that add up to the text, and reports o200k usage, model and provider', async () => {
    const deltas: string[] = [];
    const messages = convo(TRAVEL_TASK, 'Plan it please');
    const res = await new OfflineProvider({ tokensPerSecond: 400, firstTokenDelayMs: 0 }).complete({ model: 'gpt-4o-mini', messages, onDelta: (d) => deltas.push(d) });
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(res.text);
    expect(res.provider).toBe('offline');
    expect(res.model).toBe(OFFLINE_MODEL);
    expect(res.providerUrl).toBeNull();
    expect(res.finishReason).toBe('stop');
    expect(res.ttftMs).not.toBeNull();
    expect(res.usage?.completionTokens).toBe(countTokens(res.text));
    expect(res.usage?.promptTokens).toBe(3 + (3 + countTokens(TRAVEL_TASK)) + (3 + countTokens('Plan it please')));
  });

  it('streams at the configured pace', async () => {
    const t0 = Date.now();
    const res = await new OfflineProvider({ tokensPerSecond: 400, firstTokenDelayMs: 0 }).complete({ model: 'x', messages: convo('Say something.', 'hi'), onDelta: () => {} });
    const minMs = (res.usage!.completionTokens / 400) * 1000;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(minMs * 0.8);
  });

  it('honours maxTokens with finish reason "length" and stops on abort', async () => {
    const cut = await fast().complete({ model: 'x', messages: convo(TRAVEL_TASK, 'hi'), maxTokens: 5 });
    expect(cut.finishReason).toBe('length');
    expect(cut.usage?.completionTokens).toBeLessThanOrEqual(5);

    const controller = new AbortController();
    let received = '';
    const res = await new OfflineProvider({ tokensPerSecond: 200, firstTokenDelayMs: 0 }).complete({
      model: 'x', messages: convo(TRAVEL_TASK, 'hi'), signal: controller.signal,
      onDelta: (d) => {
        received += d;
        if (received.length > 10) controller.abort();
      },
    });
    expect(res.finishReason).toBe('aborted');
    expect(res.error).toBeUndefined();
    expect(res.text).toBe(received);
    const full = await fast().complete({ model: 'x', messages: convo(TRAVEL_TASK, 'hi') });
    expect(res.text.length).toBeLessThan(full.text.length);
  });
});
