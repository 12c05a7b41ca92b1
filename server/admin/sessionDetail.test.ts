import { describe, expect, it } from 'vitest';
import { Survey } from '../../common/survey';
import { scaleLabel } from './sessionDetail';

const survey = Survey.parse({
  title: 'Post',
  items: [
    { id: 'ends', kind: 'likert', prompt: 'How sure?', points: 5, anchors: ['Not at all', 'Very'] },
    { id: 'each', kind: 'likert', prompt: 'Agree?', points: 3, anchors: ['No', 'Unsure', 'Yes'] },
    { id: 'note', kind: 'text', prompt: 'Anything else?', required: false },
  ],
});
const item = (id: string) => survey.items.find((i) => i.id === id)!;

describe('scaleLabel: a survey value as the session page shows it', () => {
  it('names the point and its anchor where the scale labels it', () => {
    expect(scaleLabel(item('ends'), 1)).toBe('1 of 5: Not at all');
    expect(scaleLabel(item('ends'), 3)).toBe('3 of 5');
    expect(scaleLabel(item('ends'), 5)).toBe('5 of 5: Very');
    expect(scaleLabel(item('each'), 2)).toBe('2 of 3: Unsure');
    expect(scaleLabel(item('note'), 1)).toBeUndefined();
  });
});
