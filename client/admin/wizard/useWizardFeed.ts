import { useEffect, useRef } from 'react';
import { io } from 'socket.io-client';
import { WizardDraftPush, WizardQueueChanged } from '../../../common/wizard';

/**
 * The /wizard socket for one study: `onQueue` when its queue changed (reload it), `onDraft` for each fragment
 * of a draft the researcher may see. Pushes that fail their schema are dropped.
 */
export function useWizardFeed(studyId: string, onQueue: () => void, onDraft: (d: WizardDraftPush) => void): void {
  const handlers = useRef({ onQueue, onDraft });
  handlers.current = { onQueue, onDraft };
  useEffect(() => {
    const socket = io('/wizard', { withCredentials: true });
    socket.on('connect', () => {
      socket.emit('wizard:watch', { studyId }, () => handlers.current.onQueue());
    });
    socket.on('wizard:queue', (p: unknown) => {
      if (WizardQueueChanged.safeParse(p).success) handlers.current.onQueue();
    });
    socket.on('wizard:draft', (p: unknown) => {
      const parsed = WizardDraftPush.safeParse(p);
      if (parsed.success) handlers.current.onDraft(parsed.data);
    });
    return () => {
      socket.close();
    };
  }, [studyId]);
}
