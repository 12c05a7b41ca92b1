/**
 * Which text of a run is its answer, read as a careful reader would:
 *  - the `FINAL:` line only — the last line starting with the marker (markdown emphasis, a heading or
 *    quote mark before it allowed); the explanation on other lines does not count. A marker alone on
 *    its line takes the next non-empty line;
 *  - around it, markdown emphasis, code ticks, surrounding quotes and trailing punctuation are dropped;
 *  - a submit tool call's arguments, where the task has a submit tool (toolCalls.ts);
 *  - the last message, only when neither exists (the round limit came first).
 */

const MARKER_LINE = /^[\s>#*_`-]*(?:\*\*|__)?\s*FINAL\s*(?:\*\*|__)?\s*:\s*(?:\*\*|__)?(.*)$/i;

/** The answer on the last FINAL: line, cleaned; null when the text has no FINAL: line with an answer. */
export function finalLineAnswer(text: string): string | null {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = MARKER_LINE.exec(lines[i]!);
    if (!m) continue;
    let answer = cleanAnswer(m[1] ?? '');
    for (let j = i + 1; answer === '' && j < lines.length; j++) answer = cleanAnswer(lines[j]!);
    return answer === '' ? null : answer;
  }
  return null;
}

const QUOTES = `"'“”‘’«»\``;
/** Markdown emphasis, code ticks, surrounding quotes and trailing sentence punctuation off; whitespace runs as one space. */
export function cleanAnswer(raw: string): string {
  let s = raw.replace(/\s+/g, ' ').trim();
  for (let before = ''; before !== s; ) {
    before = s;
    s = s.replace(/^(\*\*|__|\*|_|~~)(.*)\1$/, '$2').trim();
    s = s.replace(/^(\*\*|__)\s*|\s*(\*\*|__)$/g, '').trim();
    if (s.length >= 2 && QUOTES.includes(s[0]!) && QUOTES.includes(s.at(-1)!)) s = s.slice(1, -1).trim();
    s = s.replace(/[.,;:!?…]+$/u, '').trim();
  }
  return s;
}
