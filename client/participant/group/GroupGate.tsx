import { useCallback, useEffect, useMemo, type ReactNode } from 'react';
import * as Y from 'yjs';
import type { GroupPush } from '../../../common/groupEvents';
import type { SessionState } from '../../../common/session';
import type { SessionActions } from '../session/useParticipantSession';
import { GroupLobby, GroupReleased } from './GroupLobby';
import { GroupRoom } from './GroupRoom';
import { GroupScreening } from './GroupScreening';
import { applyRemote } from './sharedText';
import { useGroup } from './useGroup';

/**
 * The group step between consent and the survey: a session of a group condition answers the screening questions (if
 * its condition has any), waits in the lobby, then works in the
 * group room; any other session sees `children` (the single-person instructions or workspace) unchanged.
 */
export function GroupGate({ state, actions, token, children }: { state: SessionState; actions: SessionActions; token: string; children: ReactNode }) {
  const doc = useMemo(() => new Y.Doc(), []);
  const onDoc = useCallback((p: GroupPush<'group:doc'>) => applyRemote(doc, p.update), [doc]);
  const group = useGroup(actions.connection, onDoc);
  const { view } = group;

  // A condition with screening questions joins the lobby from its screening page, with the answers.
  const screening = view?.state === 'not_joined' ? view.screening : [];
  useEffect(() => {
    if (view?.state === 'not_joined' && view.screening.length === 0) group.joinLobby().catch(() => undefined);
    if (view?.state === 'grouped' && state.step === 'instructions') actions.advance('instructions').catch(() => undefined);
  }, [view?.state, state.step, group, actions]);

  if (view === null || view.state === 'none') return <>{children}</>;
  if (view.state === 'not_joined' && screening.length > 0) return <GroupScreening questions={screening} onSubmit={(answers) => group.joinLobby(answers)} />;
  if (view.state === 'waiting') return <GroupLobby view={view} clockOffsetMs={group.clockOffsetMs} />;
  if (view.state === 'released') return <GroupReleased view={view} />;
  if (view.state === 'grouped' && state.step === 'workspace')
    return <GroupRoom view={view} group={group} doc={doc} fields={state.task.fields} onSubmit={(fields) => actions.submitArtifact(fields)} />;
  return (
    <p className="page-status" role="status">
      {view.state === 'left' ? 'You left the lobby.' : 'Joining your group…'}
    </p>
  );
}
