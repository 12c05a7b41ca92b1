import { useCallback, useEffect, useRef } from 'react';
import type { Telemetry } from '../../../common/events';
import type { TelemetryArea } from '../../../common/telemetryBatch';
import { RequestError } from '../../socket/errors';
import { IntegrityRecorder, type BatchBody } from './integrityRecorder';

/** How often a batch goes out while something happens (and at once when the page is hidden or left). */
export const FLUSH_EVERY_MS = 10_000;
/** A paste (rare, and the measure researchers screen for most) brings the next batch forward to within this. */
export const FLUSH_AFTER_PASTE_MS = 2_000;

const INSERT_TYPES = new Set(['insertText', 'insertLineBreak', 'insertParagraph']);
const DELETE_TYPES = new Set(['deleteContentBackward', 'deleteContentForward', 'deleteWordBackward', 'deleteWordForward', 'deleteSoftLineBackward', 'deleteSoftLineForward', 'deleteHardLineBackward', 'deleteHardLineForward']);

/** Chat box or artifact field: the workspace's text inputs (the chat composer is the form.composer). */
function areaOf(target: EventTarget | null): TelemetryArea | null {
  if (!(target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement)) return null;
  if (target.closest('.composer')) return 'chat';
  return target.closest('.workspace') ? 'artifact' : null;
}

/**
 * Integrity telemetry of the workspace (docs/data-protection.md): pastes (length and target, reported by the
 * chat box and the fields through the returned `note`), typing cadence (document-level passive listeners on
 * input events: counts and intervals, never keys or text), and time away (hidden page or unfocused window).
 * Everything is accumulated in memory and sent as one `telemetry:batch` at most every FLUSH_EVERY_MS, when a
 * list fills, when the page is hidden and when it is left (pagehide / unmount), never per keystroke.
 * Once the server says the session's telemetry budget is used up, nothing more is sent.
 */
export function useIntegrityTelemetry(send: (batch: BatchBody) => Promise<unknown>): (event: Omit<Telemetry, 'clientTs'>) => void {
  const recorder = useRef<IntegrityRecorder | null>(null);
  recorder.current ??= new IntegrityRecorder(Date.now, document.visibilityState === 'hidden');
  const sendRef = useRef(send);
  sendRef.current = send;
  const flushRef = useRef<(final?: boolean) => void>(() => {});
  const soon = useRef<number | null>(null);

  useEffect(() => {
    const rec = recorder.current!;
    let refused = false;
    const flush = (final = false) => {
      if (refused) return;
      const body = rec.take(final);
      if (!body) return;
      sendRef.current(body).catch((error: unknown) => {
        if (error instanceof RequestError && (error.code === 'limit_reached' || error.code === 'session_over')) refused = true;
      });
    };
    flushRef.current = flush;
    const onInput = (event: Event) => {
      const e = event as InputEvent;
      const area = areaOf(e.target);
      if (!area) return;
      if (INSERT_TYPES.has(e.inputType)) rec.keyInput(area, e.data?.length ?? 1, e.timeStamp);
      else if (DELETE_TYPES.has(e.inputType)) rec.keyInput(area, 0, e.timeStamp);
      else return; // pastes, drops, IME steps, autofill: not typing
      if (rec.full) flush();
    };
    const onCompositionEnd = (event: Event) => {
      const area = areaOf(event.target);
      if (area) rec.composed(area, (event as CompositionEvent).data?.length ?? 0);
    };
    const onVisibility = () => {
      const hidden = document.visibilityState === 'hidden';
      rec.setHidden(hidden);
      if (hidden) flush(true);
    };
    const onBlur = () => rec.setBlurred(true);
    const onFocus = () => rec.setBlurred(false);
    const onPageHide = () => flush(true);
    const passive = { capture: true, passive: true } as const;
    document.addEventListener('input', onInput, passive);
    document.addEventListener('compositionend', onCompositionEnd, passive);
    document.addEventListener('visibilitychange', onVisibility, { passive: true });
    window.addEventListener('blur', onBlur, { passive: true });
    window.addEventListener('focus', onFocus, { passive: true });
    window.addEventListener('pagehide', onPageHide, { passive: true });
    const timer = window.setInterval(() => flush(), FLUSH_EVERY_MS);
    return () => {
      window.clearInterval(timer);
      if (soon.current !== null) window.clearTimeout(soon.current);
      document.removeEventListener('input', onInput, passive);
      document.removeEventListener('compositionend', onCompositionEnd, passive);
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('blur', onBlur);
      window.removeEventListener('focus', onFocus);
      window.removeEventListener('pagehide', onPageHide);
      flush(true);
    };
  }, []);

  return useCallback((event: Omit<Telemetry, 'clientTs'>) => {
    if (event.kind !== 'paste' || event.chars === undefined) return;
    recorder.current!.paste(event.target ?? 'chat', event.chars);
    if (recorder.current!.full) flushRef.current();
    else if (soon.current === null)
      soon.current = window.setTimeout(() => {
        soon.current = null;
        flushRef.current();
      }, FLUSH_AFTER_PASTE_MS);
  }, []);
}
