/**
 * Scripted participants for the pipeline test: each one joins the visualization study over HTTP,
 * works over a real socket.io connection (consent, chat, an uploaded PNG plot, submit, survey).
 */
import { callOk, connectSocket, join, nextPush, toWorkspace, type TestServer } from '../support/integrationHarness';
import { plotPng } from '../support/png';

export interface ScriptedParticipant {
  index: number;
  /** Platform id in the study link; must never reach a science file. */
  pid: string;
  /** Chat messages, sent one at a time, each waiting for the assistant's reply. */
  messages: string[];
  /** Survey answers (Likert items + attention check). */
  answers: Record<string, number>;
  /** Judge scores the fake model gives this participant's artifact, by sample (seed). */
  judgeScores: [number, number, number];
  /** Stop the first reply before its first token (a stored, empty, 'stopped' assistant message), then go on. */
  stopFirstReply?: boolean;
}

/** Participants name their plot files after themselves; the name must not reach the dataset. */
export const PERSONAL_FILE_NAME = 'jane-doe-thesis-plot';

/** Text the fake chat model answers slowly, so that the participant can stop it before any token. */
export const SLOW_REPLY_MARKER = '(take your time)';

/** The marker the fake judge uses to recognise a participant's artifact. */
export const artifactMarker = (index: number) => `pipeline-participant-${String(index).padStart(2, '0')}`;

const FILLER = 'I think the relation between study hours and the exam score is worth looking at, maybe with sleep as well. ';

export function scriptedParticipants(count: number): ScriptedParticipant[] {
  return Array.from({ length: count }, (_, i) => {
    const turns = 1 + (i % 3);
    const messages = Array.from({ length: turns }, (_, t) => `Question ${t + 1} from participant ${i}: ${FILLER.repeat(1 + ((i * 3 + t) % 5))}`.trim());
    return {
      index: i,
      pid: `5f${String(1000 + i)}aa${String(7000 + i * 13)}bb`,
      messages,
      answers: { confidence: 1 + (i % 5), ai_usefulness: 5 - (i % 5), speed: 1 + ((i * 2) % 5), attention: 4, satisfaction: 1 + ((i * 3) % 5) },
      judgeScores: [1 + (i % 5), 1 + ((i + 1) % 5), 1 + ((i * 2) % 5)],
    };
  });
}

async function uploadPlot(t: TestServer, token: string, index: number): Promise<string> {
  const res = await fetch(`${t.server.url}/api/session/upload?field=plot&name=${PERSONAL_FILE_NAME}-${index}.png`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' },
    body: new Uint8Array(plotPng(16 + index, 12)),
  });
  const body = (await res.json()) as { ok: boolean; data?: { uploadId: string } };
  if (res.status !== 201 || !body.ok || !body.data) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data.uploadId;
}

/** Runs one participant from the study link to the completion code; returns the database session id. */
export async function runParticipant(t: TestServer, p: ScriptedParticipant): Promise<string> {
  const joined = await join(t, 'visualization', { PROLIFIC_PID: p.pid, STUDY_ID: 'pipeline-study', SESSION_ID: `pipeline-session-${p.index}` });
  const socket = await connectSocket(t, joined.token);
  await toWorkspace(socket);
  if (p.stopFirstReply) {
    const stopped = nextPush(socket, 'chat:done');
    const ack = await callOk(socket, 'chat:send', { clientId: `pipe-${p.index}-stopped`, text: `Could you explain everything? ${SLOW_REPLY_MARKER}`, clientTs: Date.now() });
    await callOk(socket, 'chat:stop', { replyId: ack.replyId ?? undefined, clientTs: Date.now() });
    const { message } = await stopped;
    if (message.status !== 'stopped' || message.text !== '') throw new Error(`participant ${p.index}: expected an empty stopped reply, got ${JSON.stringify(message)}`);
  }
  for (const [k, text] of p.messages.entries()) {
    const done = nextPush(socket, 'chat:done');
    await callOk(socket, 'chat:send', { clientId: `pipe-${p.index}-msg-${k}`, text, clientTs: Date.now() });
    await done;
  }
  const plot = await uploadPlot(t, joined.token, p.index);
  const marker = artifactMarker(p.index);
  const fields = {
    hypothesis: `${marker}: students who study more hours score higher on the exam.`,
    code: `import pandas as pd\ndf = pd.read_csv("study_habits.csv")\ndf.plot.scatter("study_hours", "exam_score")  # ${marker}`,
    plot,
    interpretation: `The scatter plot shows a positive trend${' and the trend holds within each section'.repeat(1 + (p.index % 4))}.`,
  };
  const afterSubmit = await callOk(socket, 'artifact:submit', { fields, clientTs: Date.now() });
  if (afterSubmit.step !== 'survey') throw new Error(`participant ${p.index}: expected the survey after submit, got ${afterSubmit.step}`);
  const final = await callOk(socket, 'survey:submit', { answers: p.answers, clientTs: Date.now() });
  if (final.status !== 'completed') throw new Error(`participant ${p.index}: not completed (${final.status})`);
  socket.disconnect();
  return joined.sessionId;
}

/** A participant who opens the link and declines consent. */
export async function runDecliner(t: TestServer, pid: string): Promise<string> {
  const joined = await join(t, 'visualization', { PROLIFIC_PID: pid });
  const socket = await connectSocket(t, joined.token);
  const state = await callOk(socket, 'session:state', {});
  const after = await callOk(socket, 'consent:respond', { accept: false, version: state.consent.version, clientTs: Date.now() });
  if (after.status !== 'declined') throw new Error(`decliner: expected declined, got ${after.status}`);
  socket.disconnect();
  return joined.sessionId;
}
