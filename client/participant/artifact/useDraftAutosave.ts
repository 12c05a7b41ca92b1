import { useEffect, useRef, useState } from 'react';
import type { ArtifactValues, SessionState } from '../../../common/session';
import { useDebouncedCallback } from '../../ui/useDebouncedCallback';
import { RequestError } from '../../socket/errors';
import { actionMessageOf } from '../errorMessages';
import type { SessionActions } from '../session/useParticipantSession';

const AUTOSAVE_DELAY_MS = 800;
const RESAVE_AFTER_ERROR_MS = 3000;

export type SaveStatus =
  | { kind: 'idle' }
  | { kind: 'unsaved' }
  | { kind: 'saving' }
  | { kind: 'saved'; at: number }
  /** Retried by itself after a few seconds. */
  | { kind: 'error'; message: string }
  /** Retrying cannot help (the session's storage is full): shown until the next edit. */
  | { kind: 'refused'; message: string }
  /** Another tab saved a newer draft: autosave pauses until the participant loads it or keeps this one. */
  | { kind: 'conflict' };

export function initialValues(state: SessionState): ArtifactValues {
  return { ...(state.artifactVersions.at(-1)?.fields ?? {}), ...(state.draft?.fields ?? {}) };
}

/**
 * The artifact form's values and their debounced autosave. Saves go out one at a time, each naming the draft
 * version it is based on (the last ack's, or the loaded state's), so a save from a stale tab is refused by
 * the server ('conflict') instead of overwriting what another tab saved; the form then shows a notice with
 * `loadNewer` (take the other tab's draft) and `keepMine` (save these values over it).
 * Live sync: a draft another tab of the session saved arrives as it is saved (server/socket/draftSync.ts); this
 * tab shows it when it has nothing unsaved of its own (its values are the ones it last saved or loaded), and
 * bases its next save on that version. With unsaved edits it keeps them, and their save meets the conflict
 * notice as before.
 */
export function useDraftAutosave(state: SessionState, actions: SessionActions) {
  const [values, setValues] = useState<ArtifactValues>(() => initialValues(state));
  const [status, setStatus] = useState<SaveStatus>(() => (state.draft ? { kind: 'saved', at: state.draft.savedAt } : { kind: 'idle' }));
  const latest = useRef(values);
  latest.current = values;
  const baseVersion = useRef(state.draft?.version ?? 0);
  const conflicted = useRef(false);
  // The values this tab knows are stored (loaded, acknowledged or taken from another tab): anything else is unsaved.
  const stored = useRef(values);
  const queue = useRef<Promise<void>>(Promise.resolve());

  const saveNow = async (fields: ArtifactValues) => {
    // A newer edit is scheduled (it will be saved), or this tab waits for the participant's choice.
    if (conflicted.current || latest.current !== fields) return;
    setStatus({ kind: 'saving' });
    try {
      const ack = await actions.saveDraft(fields, baseVersion.current);
      baseVersion.current = ack.version;
      stored.current = fields;
      if (latest.current === fields) setStatus({ kind: 'saved', at: ack.savedAt });
    } catch (error) {
      const code = error instanceof RequestError ? error.code : 'internal';
      if (code === 'conflict') {
        conflicted.current = true;
        setStatus({ kind: 'conflict' });
      } else if (code === 'storage_full' || code === 'session_over' || code === 'wrong_step') {
        setStatus({ kind: 'refused', message: actionMessageOf(error) });
      } else {
        setStatus({ kind: 'error', message: actionMessageOf(error) });
        setTimeout(() => {
          if (latest.current === fields) autosave.schedule(fields);
        }, RESAVE_AFTER_ERROR_MS);
      }
    }
  };
  // One save at a time: the next names the version the previous one was acknowledged with.
  const save = (fields: ArtifactValues) => {
    queue.current = queue.current.then(() => saveNow(fields));
  };
  const autosave = useDebouncedCallback(save, AUTOSAVE_DELAY_MS);

  // Leaving the page (reload, close) sends a pending draft at once instead of after the debounce.
  const flushRef = useRef(autosave.flush);
  flushRef.current = autosave.flush;
  useEffect(() => {
    const onHide = () => flushRef.current();
    window.addEventListener('pagehide', onHide);
    return () => window.removeEventListener('pagehide', onHide);
  }, []);

  const onOtherTabDraft = actions.onOtherTabDraft;
  useEffect(
    () =>
      onOtherTabDraft((draft) => {
        if (draft.version <= baseVersion.current) return; // this tab's own save, or an older one arriving late
        if (conflicted.current || latest.current !== stored.current) return; // unsaved edits here win until saved
        baseVersion.current = draft.version;
        latest.current = draft.fields;
        stored.current = draft.fields;
        setValues(draft.fields);
        setStatus({ kind: 'saved', at: draft.savedAt });
      }),
    [onOtherTabDraft],
  );

  const change = (fieldId: string, value: string) => {
    const next = { ...latest.current, [fieldId]: value };
    latest.current = next;
    setValues(next);
    if (conflicted.current) return; // kept here; saved once the participant chose in the notice
    setStatus({ kind: 'unsaved' });
    autosave.schedule(next);
  };

  /** Replaces this tab's values with the draft saved elsewhere. */
  const loadNewer = async () => {
    autosave.cancel();
    const fresh = await actions.loadState();
    conflicted.current = false;
    baseVersion.current = fresh.draft?.version ?? 0;
    const next = initialValues(fresh);
    latest.current = next;
    stored.current = next;
    setValues(next);
    setStatus(fresh.draft ? { kind: 'saved', at: fresh.draft.savedAt } : { kind: 'idle' });
  };

  /** Saves this tab's values over the draft saved elsewhere. */
  const keepMine = async () => {
    const fresh = await actions.loadState();
    conflicted.current = false;
    baseVersion.current = fresh.draft?.version ?? 0;
    save(latest.current);
  };

  return { values, latest, status, change, cancel: autosave.cancel, loadNewer, keepMine };
}
