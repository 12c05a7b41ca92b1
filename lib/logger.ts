import pino, { type Logger } from 'pino';

/** The server's logger: LOG_LEVEL (default info; warn under vitest so test output stays readable). */
export function createLogger(level?: string): Logger {
  const fallback = process.env.VITEST ? 'warn' : 'info';
  return pino({ name: 'tandem', level: level ?? process.env.LOG_LEVEL ?? fallback });
}
