/**
 * Facts the offline demo assistant reads out of a conversation: what kind of task it is, and the
 * concrete details it can ground its replies in (column names, file name, destination, days, budget).
 * Plain heuristics over text — no model, no network.
 */
import { messageText, type ChatMessage } from './provider';

export type TaskKind = 'visualization' | 'travel' | 'related_work' | 'general';

export interface TaskFacts {
  kind: TaskKind;
  /** All system text (the condition's prompt and the task instructions). */
  taskText: string;
  /** A sentence from the task text that says what is to be done. */
  taskSentence: string;
  userMessages: string[];
  columns: string[];
  dataFile: string | null;
  destination: string | null;
  days: number | null;
  budget: string | null;
  dietary: string | null;
  lateStarts: boolean;
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, fourteen: 14,
};

export function detectKind(text: string): TaskKind {
  const t = text.toLowerCase();
  const score = (words: RegExp): number => (t.match(words) ?? []).length;
  const scores: Array<[TaskKind, number]> = [
    ['visualization', score(/\b(visuali[sz]\w*|plot\w*|charts?|csv|dataset|columns?|hypothes[ie]s|data analysis|tabular|pandas)\b/g)],
    ['travel', score(/\b(trip|travel\w*|itinerar\w*|holiday|vacation|hotels?|flights?|destination|sightseeing)\b/g)],
    ['related_work', score(/\b(related work|literature|papers?|citations?|references|survey of|prior work|bibliograph\w*)\b/g)],
  ];
  scores.sort((a, b) => b[1] - a[1]);
  const best = scores[0];
  return best && best[1] > 0 ? best[0] : 'general';
}

/** snake_case name for a phrase such as "hours studied in the week" → "hours_studied". */
function columnName(phrase: string): string {
  const words = phrase
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !['their', 'the', 'a', 'an', 'of', 'and', 'each', 'its'].includes(w));
  const cut = words.findIndex((w) => ['in', 'before', 'after', 'during', 'for', 'from', 'at', 'on'].includes(w));
  return (cut > 0 ? words.slice(0, cut) : words).slice(0, 3).join('_');
}

/** Column names: a CSV header line, else `backticked` identifiers, else a described list ("…: a, b, and c"). */
export function findColumns(text: string): string[] {
  for (const line of text.split('\n')) {
    const cells = line.trim().split(',').map((c) => c.trim());
    if (cells.length >= 3 && cells.every((c) => /^[A-Za-z_][A-Za-z0-9_ ]{0,30}$/.test(c))) return cells.slice(0, 10);
  }
  const ticked = [...text.matchAll(/`([A-Za-z_][A-Za-z0-9_]{0,40})`/g)].map((m) => m[1] as string);
  const unique = [...new Set(ticked)].filter((c) => !/\.(csv|py|r)$/i.test(c));
  if (unique.length >= 2) return unique.slice(0, 10);
  const described = /(?:describes|columns?|variables?|contains|records|fields?)[^:\n]*:\s*([^.]+?)(?:\.(?:\s|$)|$)/i.exec(text);
  if (described?.[1]) {
    const items = described[1].split(/,\s*(?:and\s+)?|\s+and\s+/).map(columnName).filter((c) => c.length > 1);
    if (items.length >= 2) return [...new Set(items)].slice(0, 10);
  }
  return [];
}

/** The first sentence of the task text that is about the task rather than the assistant's role. */
function taskSentenceOf(text: string): string {
  const sentences = text
    .replace(/[#*_>`]+/g, ' ')
    .split(/(?<=[.!?])\s+|\n{2,}/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    // Skip sentences about the assistant's role (the condition's prompt), keep those about the task.
    .filter((s) => s.length > 20 && !/^(you are|your task$|be |answer |help the|(before|once|when|unless) you)/i.test(s))
    .filter((s) => !/\b(participant|clarifying|assistant)\b/i.test(s));
  const sentence = sentences.find((s) => /\b(plan|analy[sz]e|write|describe|build|create|draft|find|state|summari[sz]e|compare)\b/i.test(s)) ?? sentences[0] ?? '';
  return sentence.length > 220 ? `${sentence.slice(0, 217)}…` : sentence;
}

function findDays(text: string): number | null {
  const m = /\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen)[- ](?:full[- ])?(day|night)s?\b/i.exec(text);
  if (!m?.[1]) return null;
  const n = /^\d+$/.test(m[1]) ? Number(m[1]) : (NUMBER_WORDS[m[1].toLowerCase()] ?? null);
  return n !== null && n >= 1 && n <= 14 ? n : null;
}

const NOT_PLACES = new Set(['I', 'We', 'The', 'A', 'My', 'Our', 'Day', 'Europe', 'European', 'AI', 'Hi', 'Hello', 'Thanks', 'Please', 'It', 'What', 'How', 'Can']);

function findDestination(text: string): string | null {
  for (const m of text.matchAll(/\b(?:to|in|visit(?:ing)?|about|choose|chose|pick|picked|go with|fancy)\s+([A-Z][a-zà-ÿ]+(?:\s[A-Z][a-zà-ÿ]+)?)/g)) {
    const place = m[1] as string;
    if (!NOT_PLACES.has(place.split(' ')[0] as string)) return place;
  }
  const bare = /^\s*([A-Z][a-zà-ÿ]+(?:\s[A-Z][a-zà-ÿ]+)?)[\s.!?]*$/m.exec(text); // a reply that is just "Lisbon"
  return bare?.[1] && !NOT_PLACES.has(bare[1]) ? bare[1] : null;
}

export function readTaskFacts(messages: ChatMessage[]): TaskFacts {
  const taskText = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const userMessages = messages.filter((m) => m.role === 'user').map(messageText);
  const userText = userMessages.join('\n');
  const everything = `${taskText}\n${userText}`;
  return {
    kind: detectKind(taskText || userText),
    taskText,
    taskSentence: taskSentenceOf(taskText),
    userMessages,
    columns: findColumns(everything),
    dataFile: /\b([\w-]+\.(?:csv|tsv|xlsx))\b/i.exec(everything)?.[1] ?? null,
    // The participant's words win over the task text for choices the task leaves open.
    destination: findDestination(userText) ?? findDestination(taskText),
    days: findDays(userText) ?? findDays(taskText),
    budget: /[€$£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:€|EUR|USD|GBP|euros?|dollars?|pounds)\b/i.exec(userText)?.[0] ??
      /[€$£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:€|EUR|USD|GBP|euros?|dollars?|pounds)\b/i.exec(taskText)?.[0] ?? null,
    dietary: /\b(vegetarian|vegan|gluten[- ]free|halal|kosher)\b/i.exec(everything)?.[1]?.toLowerCase() ?? null,
    lateStarts: /\b(early mornings?|sleep in|late start|not a morning)\b/i.test(everything),
  };
}
