import { useEffect, useState } from 'react';
import type { WizardGroupAgents } from '../../../common/groupWizard';
import type { MonitorGroup } from '../../../common/groupMonitor';
import { GroupCard } from '../GroupMonitor';
import { useAdminSocket } from '../useAdminSocket';
import { useServerClock } from '../useServerClock';
import { wizardApi } from './wizardApi';
import { researcherMessage } from './queueWording';

/** The compose box of one group: speak as one of its wizard agents, or send a canned message. */
function SpeakAs({ g, agents, onError }: { g: MonitorGroup; agents: WizardGroupAgents['agents']; onError: (m: string | null) => void }) {
  const mine = agents.filter((a) => a.conditionId === g.conditionId && g.wizardAgents.includes(a.name));
  const [agent, setAgent] = useState(mine[0]?.name ?? '');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const chosen = mine.find((a) => a.name === agent) ?? mine[0];
  if (!chosen || g.status !== 'active') return null;
  const say = async (words: string) => {
    if (!words.trim()) return;
    setSending(true);
    try {
      await wizardApi.groupSay(g.groupId, { agent: chosen.name, text: words });
      setText('');
      onError(null);
    } catch (e) {
      onError(researcherMessage((e as Error).message));
    } finally {
      setSending(false);
    }
  };
  const id = `wizard-group-${g.groupId}`;
  return (
    <form
      className="wizard-group-say"
      onSubmit={(e) => {
        e.preventDefault();
        void say(text);
      }}
    >
      {mine.length > 1 && (
        <p>
          <label htmlFor={`${id}-agent`}>Speak as</label>{' '}
          <select id={`${id}-agent`} value={chosen.name} onChange={(e) => setAgent(e.target.value)}>
            {mine.map((a) => (
              <option key={a.name}>{a.name}</option>
            ))}
          </select>
        </p>
      )}
      <label htmlFor={`${id}-text`}>Message to the group as {chosen.name}</label>
      <textarea id={`${id}-text`} rows={3} value={text} onChange={(e) => setText(e.target.value)} />
      <p className="hint">The members see it from {chosen.name}; the data record it as written by a researcher.</p>
      <div className="wizard-actions">
        <button type="submit" disabled={sending || !text.trim()}>
          Send as {chosen.name}
        </button>
        {chosen.cannedReplies.map((c) => (
          <button key={c} type="button" className="secondary" disabled={sending} onClick={() => void say(c)}>
            {c.length > 40 ? `${c.slice(0, 39)}…` : c}
          </button>
        ))}
      </div>
    </form>
  );
}

/**
 * The group rooms of a study whose agents a researcher speaks as (Wizard of Oz): each live group's members, room and
 * shared document over the live monitor, with a box to speak as its wizard agent. Text is rendered as text.
 */
export function GroupWizardPanel({ studyId }: { studyId: string }) {
  const [agents, setAgents] = useState<WizardGroupAgents['agents'] | null>(null);
  useEffect(() => {
    wizardApi.groupAgents(studyId).then(
      (r) => setAgents(r.agents),
      () => setAgents([]),
    );
  }, [studyId]);
  // A study without group wizard agents opens no monitor connection.
  return agents && agents.length > 0 ? <GroupRooms studyId={studyId} agents={agents} /> : null;
}

function GroupRooms({ studyId, agents }: { studyId: string; agents: WizardGroupAgents['agents'] }) {
  const [error, setError] = useState<string | null>(null);
  const live = useAdminSocket(studyId);
  const at = useServerClock(live.snapshot?.at);
  const groups = (live.snapshot?.groups?.groups ?? []).filter((g) => g.status === 'active' && g.wizardAgents.length > 0);
  return (
    <section className="card wizard-groups" aria-labelledby="wizard-groups-title">
      <h2 id="wizard-groups-title">Group rooms ({groups.length})</h2>
      {error && <p className="error-box" role="alert">{error}</p>}
      {live.error && <p className="error-box" role="alert">{live.error}</p>}
      {groups.length === 0 && <p className="hint">No live group has an agent you speak as.</p>}
      {groups.map((g) => (
        <div key={g.groupId} className="wizard-group" data-testid="wizard-group">
          <GroupCard g={g} at={at} streaming={live.snapshot?.streaming[g.groupId] ?? {}} />
          <SpeakAs g={g} agents={agents} onError={setError} />
        </div>
      ))}
    </section>
  );
}
