/**
 * The run viewer: one page per task (runs/<task>.html beside report.html) with every run of it — model, arm,
 * seed, status, answer, outcome — and each run's conversation: round, seat and speaker, text, tool calls, and
 * both raters' labels (the third's when it settled a disagreement). All text is escaped: model and participant
 * text never reaches the page as HTML.
 */
import { escapeHtml } from '../../../common/escapeHtml';
import { isUnlabelled, type JudgeVerdict, type RunMessage, type TeamworkRun } from '../../../common/teamworkRun';
import { Html, page, table } from './htmlBits';

const ARM_ORDER = ['alone', 'calm', 'test'];
const verdict = (v: JudgeVerdict | undefined): string =>
  v ? `${v.label ?? '(no label)'} — ${v.model}${v.retried ? ` (retried; first reply: ${v.first_raw ?? ''}; retry: ${v.raw})` : v.label === null ? ` (reply: ${v.raw})` : ''}` : '';

function messageRows(messages: readonly RunMessage[]): unknown[][] {
  return messages.map((m) => [
    m.seq,
    m.round ?? '',
    `${m.seat ?? m.role} · ${m.speaker}`,
    new Html(`<div class="text">${escapeHtml(m.text)}</div>`),
    (m.tool_calls ?? []).map((c) => `${c.name}(${c.arguments})${c.malformed ? ` — malformed: ${c.malformed}` : ''}`).join('\n'),
    verdict(m.labels?.referee),
    verdict(m.labels?.second),
    m.labels ? `${m.labels.final}${isUnlabelled(m.labels) ? ' (unlabelled: the default)' : m.labels.agreed ? '' : ` (disagreed${m.labels.third ? `; third: ${verdict(m.labels.third)}` : ''})`}` : '',
  ]);
}

export function runPage(task: string, runs: readonly TeamworkRun[]): string {
  const sorted = [...runs].sort((a, b) => a.model.localeCompare(b.model) || ARM_ORDER.indexOf(a.arm) - ARM_ORDER.indexOf(b.arm) || a.seed - b.seed);
  const blocks = sorted.map((r) => {
    const outcome = r.status !== 'ok' ? `${r.status}: ${r.error ?? ''}` : r.unscored ? `unscored: ${r.unscored}` : `${r.passed ? 'passed' : 'failed'}${r.failure_mode ? ` (${r.failure_mode})` : ''}`;
    const grades = Array.isArray(r.check_grades) ? `; graded: ${(r.check_grades as JudgeVerdict[]).map((g) => `${g.rater} ${g.label ?? '(no verdict)'}`).join(', ')}` : '';
    const summary = `${r.model} · ${r.arm} · seed ${r.seed} — ${outcome}; answer: ${r.answer ?? '(none)'}${grades}`;
    return `<details id="${escapeHtml(`${r.model}-${r.arm}-${r.seed}`)}"><summary>${escapeHtml(summary)}</summary>${table(['#', 'round', 'seat · speaker', 'text', 'tool calls', 'referee', 'second rater', 'final label'], messageRows(r.messages))}</details>`;
  });
  return page(`Runs of ${task}`, `<p><a href="../report.html">← report</a></p><h1>${escapeHtml(`Runs of ${task}`)}</h1><p>${escapeHtml(`${runs.length} runs. Open a run to read its conversation.`)}</p>\n${blocks.join('\n')}`);
}
