// One structured JSON line per request, through the one logger (Powertools Logger). The sink is
// swappable so tests can read the lines.
import { logger } from '../observability/logger';

export interface RequestLogLine {
  level: 'info' | 'warn' | 'error';
  requestId: string;
  operationId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  org?: string;
  code?: string;
  /** Only for unexpected failures: the real cause, kept out of the response body. */
  error?: string;
}

export type LogSink = (line: RequestLogLine) => void;

// `level` is the logger's own key (Powertools drops it from extra fields, with a warning line each time).
const stdoutSink: LogSink = ({ level, ...fields }) =>
  logger[level](`${fields.method} ${fields.path} ${fields.status}`, fields);
let sink: LogSink = stdoutSink;

export function setRequestLogSink(next: LogSink | null): void {
  sink = next ?? stdoutSink;
}

/** The logger's numeric thresholds (Powertools: a line is printed when its level's is >= logger.level). */
const THRESHOLDS: Record<RequestLogLine['level'], number> = { info: 12, warn: 16, error: 20 };

/** Whether a request line of `level` would be written: when the level drops it, none is made. */
export function requestLogWanted(level: RequestLogLine['level']): boolean {
  return sink !== stdoutSink || THRESHOLDS[level] >= logger.level;
}

export function logRequest(line: RequestLogLine): void {
  try {
    sink(line);
  } catch {
    // Logging must never fail a request.
  }
}

/** Warnings outside the request line (e.g. metering failures), same JSON form. */
export function logWarning(requestId: string, message: string, error?: unknown): void {
  try {
    logger.warn(message, { requestId, error: error instanceof Error ? error.message : error });
  } catch {
    // Logging must never fail a request.
  }
}
