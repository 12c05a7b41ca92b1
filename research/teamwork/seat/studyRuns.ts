/**
 * A teamwork-seat study's sessions as teamwork runs (`teamwork from-study`): one run per finished,
 * non-pilot session of a seat condition, in the runs.jsonl format, so `score` and `report` put the people
 * on the leaderboard beside the models. Read through the Store interface (SQLite or PostgreSQL).
 *
 * Each session's trajectory is replayed from its participant messages (seatReplay.ts) with the store's
 * reply cache, so the judges' verdicts are the ones that drove the session (no new calls), and each call
 * is linked to the session so a withdrawal purges it. The submitted artifact's answer field is scored by
 * the task's outcome check; without a submission, the last message is the answer, as for models. A `judge` check is
 * graded by the condition's judges, or left `unscored` when they are offline (seatGrade.ts).
 * Identities never enter a run: the subject is the pseudonymous session id.
 */
import { randomUUID } from 'node:crypto';
import type { RunEvent, TeamworkRun } from '../../../common/teamworkRun';
import type { TeamworkTask } from '../../../common/teamworkTask';
import type { Store } from '../../../lib/storage';
import type { StudyDefinition } from '../../../lib/studyFiles/studyConfig';
import { ModelClients } from '../runner/clients';
import { JudgeFailed } from '../runner/judgeMessage';
import { finalAnswerIn } from '../runner/prompts';
import { runOutcome, taskFields } from '../runner/runOutcome';
import { replaySeat, SeatCallFailed } from './seatReplay';
import { loadSeatTask } from './seatTask';
import { gradeSeatAnswer, type SeatGrade } from './seatGrade';
import { seatContext } from './teammateProvider';

export class StudyRunsError extends Error {}

/** The cohort name people of a study appear under on the leaderboard. */
export const peopleModel = (studyId: string): string => `people:${studyId}`;

/** Sessions that become runs: the participant finished (submitted, or the time ran out). */
const FINISHED = new Set(['completed', 'timed_out']);

export interface StudyRunsOutcome {
  runs: TeamworkRun[];
  /** Sessions of seat conditions left out, by reason. */
  skipped: { pilot: number; unfinished: number; declined: number };
  calls: number;
  cacheHits: number;
}

export async function studyRuns(store: Store, study: StudyDefinition, env: NodeJS.ProcessEnv): Promise<StudyRunsOutcome> {
  const seats = new Map(study.conditions.flatMap((c) => (c.teamwork ? [[c.id, c.teamwork] as const] : [])));
  if (seats.size === 0) throw new StudyRunsError(`study "${study.id}" has no teamwork-seat condition (provider: teamwork)`);
  const tasks = new Map<string, TeamworkTask>();
  for (const seat of seats.values()) {
    const loaded = loadSeatTask(seat.task);
    if (!loaded.task) throw new StudyRunsError(`teamwork task ${seat.task}: ${loaded.problems.map((p) => p.message).join('; ')}`);
    tasks.set(seat.task, loaded.task);
  }
  const cache = await store.openReplyCache();
  const clients = new ModelClients([...new Set(tasks.values())], cache, { env });
  const skipped = { pilot: 0, unfinished: 0, declined: 0 };
  const seeds = new Map<string, number>();
  const runs: TeamworkRun[] = [];
  try {
    const sessions = (await store.sessions.listByStudy(study.id)).sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
    for (const session of sessions) {
      const seat = seats.get(session.conditionId);
      if (!seat) continue;
      if (session.isPilot) skipped.pilot++;
      else if (session.status === 'declined') skipped.declined++;
      else if (!FINISHED.has(session.status)) skipped.unfinished++;
      if (session.isPilot || !FINISHED.has(session.status)) continue;
      const task = tasks.get(seat.task)!;
      const seedKey = `${task.id}/${seat.arm}`;
      const seed = (seeds.get(seedKey) ?? 0) + 1;
      seeds.set(seedKey, seed);

      const stored = (await store.messages.listForSession(session.id)).sort((a, b) => a.eventSeq - b.eventSeq);
      const userRows = stored.filter((m) => m.role === 'user');
      const events: RunEvent[] = [];
      let status: TeamworkRun['status'] = 'ok';
      let errorText: string | null = null;
      let replay: Awaited<ReturnType<typeof replaySeat>> | null = null;
      try {
        const lines = userRows.map((m) => ({ text: m.text, created_at: new Date(m.createdAt).toISOString() }));
        replay = await replaySeat(task, seat.arm, lines, seatContext(clients, seat, { sessionId: session.id }));
        events.push(...replay.events);
        userRows.forEach((row, k) => {
          const shown = stored.find((m) => m.role === 'assistant' && m.replyTo === row.id && (m.status === 'complete' || m.status === 'stopped'));
          if (shown && shown.text !== replay!.replies[k] && shown.text !== replay!.legacyReplies[k]) events.push({ type: 'replay_mismatch', round: k + 1, detail: 'the stored reply differs from the replayed one (task file or judges changed since the session?)' });
        });
      } catch (error) {
        if (!(error instanceof JudgeFailed || error instanceof SeatCallFailed)) throw error;
        status = 'error';
        errorText = error.message;
        events.push({ type: 'provider_error', round: null, detail: error.message });
      }

      const studyTask = study.tasks.find((t) => t.id === session.taskId);
      const field = seat.answer_field ?? studyTask?.fields[0]?.id;
      const versions = await store.artifacts.listVersions(session.id);
      const last = versions.reduce<(typeof versions)[number] | undefined>((a, v) => (a === undefined || v.version > a.version ? v : a), undefined);
      const messages = (replay?.messages ?? []).map((m) => ({ ...m, session_id: session.id }));
      let answer: string | null = null;
      const submitted = last !== undefined && field !== undefined && (last.fields[field] ?? '').trim() !== '';
      if (submitted) {
        answer = last.fields[field!]!;
        events.push({ type: 'submitted', round: replay?.roundsPlayed ?? null, detail: `artifact field ${field}` });
      } else {
        const lastSaid = [...messages].reverse().find((m) => m.seat === 'subject' && (m.round ?? 0) > 0 && m.text.trim() !== '');
        answer = lastSaid ? (finalAnswerIn(lastSaid.text) ?? lastSaid.text) : null;
        events.push({ type: 'round_limit', round: task.rounds, detail: 'no submission: the last message is the answer' });
      }
      let grade: SeatGrade | undefined;
      if (task.check.type === 'judge' && status === 'ok' && answer !== null) {
        try {
          grade = await gradeSeatAnswer(task, seat, answer, seatContext(clients, seat, { sessionId: session.id }));
          if (typeof grade.graded === 'object') events.push({ type: 'unscored', round: replay?.roundsPlayed ?? null, detail: grade.graded.unscored });
        } catch (error) {
          if (!(error instanceof JudgeFailed)) throw error;
          status = 'error';
          errorText = error.message;
          events.push({ type: 'provider_error', round: null, detail: error.message });
        }
      }
      const outcome = runOutcome(task, seat.arm, status === 'ok', answer, messages, grade?.graded);
      const read = messages.filter((m) => m.seat !== 'subject').reduce((n, m) => n + (m.tokens ?? 0), 0);
      const wrote = messages.filter((m) => m.seat === 'subject').reduce((n, m) => n + (m.tokens ?? 0), 0);
      const startedAt = userRows[0]?.createdAt ?? session.consentedAt ?? session.createdAt;
      const finishedAt = session.submittedAt ?? session.endedAt ?? session.updatedAt;
      runs.push({
        schema_version: 1,
        run_id: `${peopleModel(study.id)}/${session.id}`,
        run_uuid: randomUUID(),
        model: peopleModel(study.id),
        subject: { kind: 'participant', study: study.id, session_id: session.id, condition: session.conditionId },
        ...taskFields(task),
        arm: seat.arm,
        seed,
        status,
        error: errorText,
        ...outcome,
        answer,
        submitted,
        rounds_played: replay?.roundsPlayed ?? 0,
        // People spend no provider tokens; o200k counts of what they read and wrote keep the columns comparable.
        tokens: { input: read, output: wrote, o200k_input: read, o200k_output: wrote },
        ...(grade?.verdicts ? { check_grades: grade.verdicts, check_agreed: grade.agreed } : {}),
        judge_tokens: { input: (replay?.judgeTokens.input ?? 0) + (grade?.tokens.input ?? 0), output: (replay?.judgeTokens.output ?? 0) + (grade?.tokens.output ?? 0) },
        events,
        started_at: new Date(startedAt).toISOString(),
        finished_at: new Date(finishedAt).toISOString(),
        duration_ms: Math.max(0, finishedAt - startedAt),
        messages,
      });
    }
  } finally {
    await cache.close();
  }
  const stats = clients.stats();
  return { runs, skipped, calls: stats.calls, cacheHits: stats.cacheHits };
}
