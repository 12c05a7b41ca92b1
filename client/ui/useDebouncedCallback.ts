import { useEffect, useRef } from 'react';

/**
 * Returns { schedule, flush }: schedule(value) runs `run(value)` after `delayMs` of quiet;
 * flush() runs a pending call now (on page hide, so no draft is lost); cancel() drops it.
 */
export function useDebouncedCallback<T>(run: (value: T) => void, delayMs: number) {
  const runRef = useRef(run);
  runRef.current = run;
  const pending = useRef<{ value: T; timer: ReturnType<typeof setTimeout> } | null>(null);

  const flush = () => {
    const current = pending.current;
    if (!current) return;
    clearTimeout(current.timer);
    pending.current = null;
    runRef.current(current.value);
  };
  const schedule = (value: T) => {
    if (pending.current) clearTimeout(pending.current.timer);
    pending.current = { value, timer: setTimeout(flush, delayMs) };
  };
  const cancel = () => {
    if (pending.current) clearTimeout(pending.current.timer);
    pending.current = null;
  };
  useEffect(() => () => flush(), []); // eslint-disable-line react-hooks/exhaustive-deps
  return { schedule, flush, cancel };
}
