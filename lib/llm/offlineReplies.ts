/**
 * What the offline demo assistant says. Deterministic: the reply is a pure function of the
 * conversation (variants are picked by a hash of it). On the participant's first turn it asks a
 * clarifying question grounded in the task text; afterwards it drafts a structured answer from the
 * task text and what the participant wrote. It is a demo so a fresh clone runs without a key —
 * plausible, never clever.
 */
import { messageText, type ChatMessage } from './provider';
import { readTaskFacts, type TaskFacts } from './offlineTaskFacts';

/** FNV-1a over the conversation; picks variants so the same conversation gets the same reply. */
function conversationHash(messages: ChatMessage[]): number {
  let h = 0x811c9dc5;
  for (const m of messages) {
    for (const ch of `${m.role}\u0000${messageText(m)}\u0001`) {
      h ^= ch.codePointAt(0) ?? 0;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h;
}

const pick = <T>(items: readonly T[], hash: number, salt = 0): T => items[(hash + salt * 7919) % items.length] as T;
const quote = (text: string, max = 120): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export function offlineReply(messages: ChatMessage[]): string {
  const facts = readTaskFacts(messages);
  const hash = conversationHash(messages);
  const isFirstTurn = facts.userMessages.length <= 1 && !messages.some((m) => m.role === 'assistant');
  if (isFirstTurn) return clarifyingQuestion(facts, hash);
  switch (facts.kind) {
    case 'visualization':
      return visualizationDraft(facts, hash);
    case 'travel':
      return travelDraft(facts, hash);
    case 'related_work':
      return relatedWorkDraft(facts);
    default:
      return generalDraft(facts);
  }
}

function clarifyingQuestion(f: TaskFacts, hash: number): string {
  const opener = pick(['Happy to help.', 'Glad to work on this with you.', 'Sure — let us do this together.'], hash);
  const task = f.taskSentence ? ` The task says: “${f.taskSentence}”` : '';
  const asked = f.userMessages[0] ? `\n\nYou wrote: “${quote(f.userMessages[0])}”.` : '';
  let question: string;
  if (f.kind === 'visualization') {
    const b = f.columns[f.columns.length - 1] ?? 'the outcome';
    const a = f.columns.length >= 2 ? pick(f.columns.slice(0, -1).filter((c) => !/(^|_)(id|student|name)$/.test(c)), hash) ?? 'one variable' : 'one variable';
    question = `Before I write any code: which relationship interests you most — for example, does **${a}** relate to **${b}**? ` +
      'And would you like the code in Python (pandas + matplotlib) or R?';
  } else if (f.kind === 'travel') {
    const where = f.destination ? `Is **${f.destination}** settled, or are you still choosing` : 'Which city would you like to go to';
    const budget = f.budget ? ` within the ${f.budget} budget` : '';
    question = `${where}, and what do you enjoy most on a trip${budget} — museums, food, walking, nightlife?`;
  } else if (f.kind === 'related_work') {
    question = 'What is the central claim or topic of your paper, and are there papers you already know you want to cite?';
  } else {
    question = 'What matters most to you in the result, and is there anything you have already decided?';
  }
  return `${opener}${task}${asked}\n\nOne question first, so my draft fits what you want: ${question}`;
}

function visualizationDraft(f: TaskFacts, hash: number): string {
  const cols = f.columns.length >= 2 ? f.columns : ['x', 'y'];
  const categorical = (c: string): boolean => /(^|_)(id|name|student|section|group|category|class|condition|country)$/i.test(c);
  const numeric = cols.filter((c) => !categorical(c));
  const y = numeric[numeric.length - 1] ?? cols[cols.length - 1] ?? 'y';
  const candidates = numeric.filter((c) => c !== y);
  // Prefer a column the participant mentioned ("I think sleep matters" → a *sleep* column).
  const said = f.userMessages.join(' ').toLowerCase();
  const mentioned = candidates.find((c) => c.split('_').some((w) => w.length >= 4 && said.includes(w)));
  const x = mentioned ?? (candidates.length ? pick(candidates, hash) : (cols[0] ?? 'x'));
  const group = cols.find((c) => categorical(c) && !/(^|_)(id|name|student)$/i.test(c));
  const file = f.dataFile ?? 'data.csv';
  const last = f.userMessages[f.userMessages.length - 1] ?? '';
  return [
    `Here is a first draft based on what you said (“${quote(last, 100)}”).`,
    '',
    `**Hypothesis.** Higher \`${x}\` goes with higher \`${y}\`${group ? `, and the pattern holds within each \`${group}\`` : ''}.`,
    '',
    '**Code** (Python; adjust the column names if yours differ):',
    '',
    '```python',
    'import pandas as pd',
    'import matplotlib.pyplot as plt',
    '',
    `df = pd.read_csv("${file}")`,
    `print(df[["${x}", "${y}"]].describe())`,
    `print("Pearson r =", round(df["${x}"].corr(df["${y}"]), 2))`,
    '',
    'fig, ax = plt.subplots(figsize=(6, 4))',
    group
      ? `for name, part in df.groupby("${group}"):\n    ax.scatter(part["${x}"], part["${y}"], label=str(name), alpha=0.8)\nax.legend(title="${group}")`
      : `ax.scatter(df["${x}"], df["${y}"], alpha=0.8)`,
    `ax.set_xlabel("${x}")`,
    `ax.set_ylabel("${y}")`,
    `ax.set_title("${y} vs ${x}")`,
    'fig.tight_layout()',
    'fig.savefig("plot.png", dpi=150)',
    '```',
    '',
    `**Interpretation to check.** If the points rise from left to right and r is clearly above 0, the plot supports the hypothesis; ` +
      'a flat cloud or r near 0 does not. Correlation alone does not show cause — mention one alternative explanation.',
    '',
    `Columns I used: ${cols.map((c) => `\`${c}\``).join(', ')}. Shall I try a different pair or plot type?`,
  ].join('\n');
}

const SIGHTS = ['the old town on foot', 'the main art museum', 'a panoramic viewpoint', 'the covered market', 'a riverside walk', 'a free walking tour', 'the castle or cathedral quarter', 'a local neighbourhood off the tourist track'];
const MEALS = ['a small family-run place near the centre', 'a market food hall', 'a well-reviewed bistro', 'a street-food stall', 'a café with a set lunch menu'];

function travelDraft(f: TaskFacts, hash: number): string {
  const days = f.days ?? 3;
  const city = f.destination ?? pick(['Lisbon', 'Vienna', 'Prague', 'Porto', 'Budapest'], hash);
  const start = f.lateStarts ? '10:00' : '09:00';
  const diet = f.dietary ? ` (${f.dietary} options)` : '';
  const budgetNumber = f.budget ? Number(f.budget.replace(/[^\d.]/g, '')) : NaN;
  const perDay = Number.isFinite(budgetNumber) && budgetNumber > 0 ? Math.round(budgetNumber / days) : null;
  const lines = [
    `Here is a draft ${days}-day plan for ${city}${f.budget ? ` within ${f.budget}` : ''}. Adjust anything that does not suit you.`,
    '',
    `**Where to stay:** a mid-range hotel or apartment in a central, walkable area — roughly ${perDay ? `€${Math.round(perDay * 0.45)}` : '€90–130'} per night.`,
  ];
  for (let d = 1; d <= days; d++) {
    lines.push(
      '',
      `**Day ${d}**`,
      // Consecutive indexes: no sight or restaurant repeats within a day (nor across days for ≤ 4 days).
      `- ${start} Morning: ${SIGHTS[(hash + 2 * d) % SIGHTS.length]}`,
      `- Lunch: ${MEALS[(hash + 2 * d) % MEALS.length]}${diet}`,
      `- Afternoon: ${SIGHTS[(hash + 2 * d + 1) % SIGHTS.length]}`,
      `- Dinner: ${MEALS[(hash + 2 * d + 1) % MEALS.length]}${diet}`,
      `- Rough cost: ${perDay ? `about €${perDay} for the day, hotel included` : 'about €150–200 for two, hotel included'}`,
    );
  }
  const last = f.userMessages[f.userMessages.length - 1] ?? '';
  lines.push('', `I took into account what you wrote last (“${quote(last, 100)}”). Want me to swap any activity or tighten the costs?`);
  return lines.join('\n');
}

function relatedWorkDraft(f: TaskFacts): string {
  const topic = quote(f.userMessages[f.userMessages.length - 1] ?? f.taskSentence, 100);
  return [
    `Here is a skeleton for the related-work section on “${topic}”.`,
    '',
    '1. **Framing paragraph** — one or two sentences on the problem and why prior work matters for it.',
    '2. **Theme A: established approaches** — group the classic papers; say what they assume and where they stop.',
    '3. **Theme B: recent work closest to yours** — two or three papers, each with one sentence on how your work differs.',
    '4. **Gap** — one sentence that names what none of them does and that your paper does.',
    '',
    'I cannot look papers up in this demo mode, so please paste the titles you want to cite and I will place them in the themes.',
  ].join('\n');
}

function generalDraft(f: TaskFacts): string {
  const last = quote(f.userMessages[f.userMessages.length - 1] ?? '', 100);
  return [
    `Here is a first draft for “${last}”.`,
    '',
    `1. **Goal** — ${f.taskSentence || 'what the finished result should achieve'}.`,
    '2. **Key points** — the two or three things the result must get right.',
    '3. **Draft** — a first version to react to; tell me what to keep and what to change.',
    '4. **Check** — a quick review against the task before you submit.',
    '',
    'Which part should I expand first?',
  ].join('\n');
}
