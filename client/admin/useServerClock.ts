import { useEffect, useState } from 'react';

/**
 * The server's time now, from the time a snapshot was taken (`serverAt`, server ms) and how long ago this browser
 * received it, ticking every second: this browser's clock may differ from the server's.
 */
export function useServerClock(serverAt: number | undefined): number {
  const [received, setReceived] = useState(() => Date.now());
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => setReceived(Date.now()), [serverAt]);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (serverAt ?? received) + Math.max(0, now - received);
}
