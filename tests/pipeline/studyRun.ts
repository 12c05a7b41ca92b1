/**
 * The data-collection half of the pipeline test: a real participant server on a temp DATA_DIR whose
 * assistant is the server's real openai client against a local fake OpenAI server, 8 scripted
 * participants, 1 who declines, and 1 pilot participant (study switched to pilot through the store).
 * Also the scripted judge model that gives each participant's artifact its planned scores.
 */
import { countTokens } from '../../common/tokens';
import { startTestServer, type TestServer } from '../support/integrationHarness';
import { lastUserText, reply, startFakeOpenAI, type FakeResponder } from '../support/fakeOpenAI';
import { runDecliner, runParticipant, scriptedParticipants, SLOW_REPLY_MARKER, type ScriptedParticipant } from './participants';

/** Typed into the chat by participant 0 (with their own platform id): must be redacted in the dataset. */
export const EMAIL = 'ana.pipeline@example.org';

export interface Participant extends ScriptedParticipant {
  dbSessionId: string;
  /** o200k counts of the stored (unredacted) message text, per role. */
  rawUserTokens: number;
  rawAgentTokens: number;
  userTurns: number;
  agentTurns: number;
  pilot: boolean;
}

export interface StudyRun {
  /** The server's data folder (database, uploads, pseudonym key), kept for the command lines. */
  dataDir: string;
  participants: Participant[];
  declinerPid: string;
  declinerDbId: string;
}

async function sessionFacts(t: TestServer, dbSessionId: string) {
  const messages = await t.server.store.messages.listForSession(dbSessionId);
  const sum = (role: string) => messages.filter((m) => m.role === role).reduce((n, m) => n + countTokens(m.text), 0);
  return {
    dbSessionId,
    rawUserTokens: sum('user'),
    rawAgentTokens: sum('assistant'),
    userTurns: messages.filter((m) => m.role === 'user').length,
    agentTurns: messages.filter((m) => m.role === 'assistant').length,
  };
}

export async function runStudy(): Promise<StudyRun> {
  // Reply length varies with the question; a question with the slow marker is answered only after 10 s.
  const chatFake = await startFakeOpenAI({
    responder: (req) => {
      const question = lastUserText(req);
      if (question.includes(SLOW_REPLY_MARKER)) return reply('This reply is stopped before it starts.', { delayMs: 10_000 });
      const sentences = 1 + (question.length % 7);
      return reply(`${'You could plot exam_score against study_hours and colour by section. '.repeat(sentences)}\n\n\`\`\`python\ndf.plot.scatter("study_hours", "exam_score")\n\`\`\``);
    },
  });
  const t = await startTestServer({ openai: { baseURL: chatFake.url, apiKey: 'chat-key' } });
  const participants: Participant[] = [];
  try {
    const scripted = scriptedParticipants(9);
    scripted[3]!.stopFirstReply = true; // an empty, stopped assistant message in the transcript
    scripted[0]!.messages[0] = `My email is ${EMAIL} and my Prolific id is ${scripted[0]!.pid}, in case you need it. ${scripted[0]!.messages[0]}`;
    for (const p of scripted.slice(0, 8)) participants.push({ ...p, ...(await sessionFacts(t, await runParticipant(t, p))), pilot: false });
    const declinerPid = '5f9999decline4242';
    const declinerDbId = await runDecliner(t, declinerPid);
    t.server.store.studies.setStatus('visualization', 'pilot', Date.now());
    participants.push({ ...scripted[8]!, ...(await sessionFacts(t, await runParticipant(t, scripted[8]!))), pilot: true });
    t.server.store.studies.setStatus('visualization', 'live', Date.now());
    return { dataDir: t.dataDir, participants, declinerPid, declinerDbId };
  } finally {
    for (const s of t.sockets) s.disconnect();
    await t.server.close(); // not t.close(): that would delete the data folder the command lines read next
    await chatFake.close();
  }
}

/** Judge replies in the rubric's format with the participant's planned score for the sample (= seed). */
export function scriptedJudge(participants: readonly Participant[]): FakeResponder {
  return (req) => {
    const marker = /pipeline-participant-(\d\d)/.exec(JSON.stringify(req.body?.messages ?? []));
    const p = marker ? participants[Number(marker[1])] : undefined;
    const seed = typeof req.body?.seed === 'number' ? req.body.seed : 0;
    const score = p?.judgeScores[seed] ?? 3;
    return reply(`The hypothesis is stated and the plot matches it. The interpretation is brief. Therefore, the final score is ${score}.`);
  };
}
