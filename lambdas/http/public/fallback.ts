// API Gateway's $default route (and the local server's unmatched requests): 404 for an unknown
// path, 405 with Allow for a known path with another method, in the family's shape by prefix.
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyHandlerV2 } from 'aws-lambda';
import { AppError } from '../../domain/errors';
import { familyOf } from '../../topology/routes';
import { routesForPath } from '../match';
import { errorResult } from '../render';
import { logRequest } from '../log';

export const handler: APIGatewayProxyHandlerV2 = async (event: APIGatewayProxyEventV2) => {
  const startedAt = Date.now();
  const requestId = event.requestContext?.requestId || randomUUID();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const method = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
  const family = familyOf(path);
  const allowed = [...new Set(routesForPath(path).map((m) => m.route.method))];
  const result = allowed.length
    ? errorResult(
        family,
        new AppError(
          'METHOD_NOT_ALLOWED',
          `Method ${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`,
        ),
        requestId,
        {
          allow: allowed.join(', '),
        },
      )
    : errorResult(family, new AppError('NOT_FOUND', `No operation at ${method} ${path}`), requestId);
  logRequest({
    level: 'warn',
    requestId,
    operationId: 'fallback',
    method,
    path,
    status: result.statusCode,
    ms: Date.now() - startedAt,
    code: allowed.length ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND',
  });
  return result;
};
