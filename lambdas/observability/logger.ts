// The one structured logger of handlers, workers and the local runtime: Powertools for AWS
// Lambda's Logger (JSON lines with level, timestamp, service and, on Lambda, the cold start and
// request id). The domain never logs; it returns values and errors.
import { Logger } from '@aws-lambda-powertools/logger';

export const logger = new Logger({ serviceName: 'product-data-service' });

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export function setLogLevel(level: LogLevel): void {
  logger.setLogLevel(level.toUpperCase() as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR');
}
