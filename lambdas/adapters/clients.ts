// Every AWS SDK client is built here, with explicit endpoints when running on the embedded
// engines. fauxqs hands out queue URLs on a host that does not resolve, hence
// useQueueUrlAsEndpoint: false.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { inProcessHandler } from './in-process-endpoints';

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface AwsClients {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
}

/** A client of the SDK as the clients' registry sees it (tracing captures it, dispose destroys it). */
export interface SdkClient {
  destroy(): void;
  middlewareStack: { remove(name: string): boolean };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True only for an endpoint on this machine: the embedded engines, never an AWS endpoint. */
export function isLoopbackEndpoint(endpoint: string | undefined): endpoint is string {
  if (!endpoint) return false;
  try {
    return LOOPBACK_HOSTS.has(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

type SignableRequest = { headers: Record<string, string> };

/**
 * A SigV4-shaped Authorization header without the signature work. dynalite checks only that the
 * header has Credential, Signature and SignedHeaders and that X-Amz-Date is present (it never
 * computes the signature), fauxqs reads only the region from the credential scope, and the local
 * Step Functions server reads no header at all. SigV4 (canonical request, two hashes, four
 * HMACs per call) is a tenth of the SDK's per-call CPU on the main thread, which the embedded
 * runtime shares with every worker.
 */
export function unsignedLocalScheme(region: string, service: string) {
  // The date and header change once a second: built then, not on every call.
  let second = -1;
  let stamped = { date: '', authorization: '' };
  const stamp = () => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) {
      second = now;
      const date = new Date(now * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
      stamped = {
        date,
        authorization: `AWS4-HMAC-SHA256 Credential=local/${date.slice(0, 8)}/${region}/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=local`,
      };
    }
    return stamped;
  };
  return {
    schemeId: 'aws.auth#sigv4',
    identityProvider: (config: { getIdentityProvider(schemeId: string): unknown }) =>
      config.getIdentityProvider('aws.auth#sigv4'),
    signer: {
      async sign<T extends SignableRequest>(request: T): Promise<T> {
        const { date, authorization } = stamp();
        request.headers['x-amz-date'] = date;
        request.headers.authorization = authorization;
        return request;
      },
    },
  };
}

/**
 * Options for a client on a local engine: local credentials; on loopback, no signing; and for an
 * engine running in this process, its requests over the engine's own transport instead of a socket
 * (in-process-endpoints.ts).
 */
export function localOptions(endpoint: string, region: string, service: string) {
  const inProcess = inProcessHandler(endpoint);
  return {
    endpoint,
    credentials: localCredentials,
    ...(isLoopbackEndpoint(endpoint) ? { httpAuthSchemes: [unsignedLocalScheme(region, service)] as never } : {}),
    ...(inProcess ? { requestHandler: inProcess as never } : {}),
  };
}

/**
 * The SDK's logger middleware runs every command's input and output through its sensitive-data
 * filter before calling the configured logger, even the default no-op one: a per-call copy of
 * every item we read or write. We configure no SDK logger (our own log lines say what matters),
 * so the middleware goes.
 */
export function withoutSdkLogging<T extends { middlewareStack: { remove(name: string): boolean } }>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * DynamoDB is built at once (every route and worker reads the table); SQS on first use: most routes
 * never send a message, and a client's construction (config resolution, credential chain,
 * middleware stack) is init time a cold start pays. The Step Functions client is not here: it is
 * built by lambdas/adapters/sfn-client.ts, a module of its own that the container loads with the
 * workflow engine (lambdas/composition/step-functions.ts), so an asset whose function never starts,
 * stops or answers an execution holds no @aws-sdk/client-sfn (lambdas/topology/capabilities.ts).
 * Such a client joins these with adoptClient: dispose destroys it and tracing captures it.
 */
export function createClients(config: Config): AwsClients {
  const { endpoints, region } = config;
  const dynamodb = withoutSdkLogging(
    new DynamoDBClient({
      region,
      ...(endpoints.dynamodb ? localOptions(endpoints.dynamodb, region, 'dynamodb') : {}),
    }),
  );
  const documents = DynamoDBDocumentClient.from(dynamodb, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  let sqs: SQSClient | undefined;
  const clients: AwsClients = {
    dynamodb,
    documents,
    get sqs() {
      sqs ??= withoutSdkLogging(
        new SQSClient({
          region,
          ...(endpoints.sqs ? { ...localOptions(endpoints.sqs, region, 'sqs'), useQueueUrlAsEndpoint: false } : {}),
        }),
      );
      return sqs;
    },
  };
  registry.set(clients, { built: () => [dynamodb, sqs], adopted: [], listeners: [] });
  return clients;
}

interface Registry {
  /** The clients of createClients that were built (one never used is not built just to be closed). */
  built: () => Array<SdkClient | undefined>;
  /** Clients built later by other modules (the Step Functions client). */
  adopted: SdkClient[];
  /** Called with every client adopted from now on (tracing). */
  listeners: Array<(client: SdkClient) => void>;
}

const registry = new WeakMap<AwsClients, Registry>();

/** A client built after the others (by a module loaded on first use) joins them: returns it. */
export function adoptClient<T extends SdkClient>(clients: AwsClients, client: T): T {
  const entry = registry.get(clients);
  if (entry) {
    entry.adopted.push(client);
    for (const listener of entry.listeners) listener(client);
  }
  return client;
}

/** The clients adopted so far, and `listener` called with each one adopted later. */
export function onAdoptedClient(clients: AwsClients, listener: (client: SdkClient) => void): SdkClient[] {
  const entry = registry.get(clients);
  if (!entry) return [];
  entry.listeners.push(listener);
  return [...entry.adopted];
}

/** Closes the clients that were built, and the adopted ones. */
export function destroyClients(clients: AwsClients): void {
  const entry = registry.get(clients);
  const list = entry ? [...entry.built(), ...entry.adopted] : [clients.dynamodb, clients.sqs];
  for (const client of list) client?.destroy();
}
