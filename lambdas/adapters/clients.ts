// Every AWS SDK client is built here. On the embedded engines (lambdas/local/engines.ts, the
// Step Functions service) a client only gets their loopback endpoint and local credentials: it
// reaches them over HTTP with the SDK's own handler and signing, as it reaches AWS. fauxqs hands
// out queue URLs on a host that does not resolve, hence useQueueUrlAsEndpoint: false.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';

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

/** Options for a client of a local engine (the embedded ones, or any other on `endpoint`): the engine's endpoint, local credentials. */
export const localOptions = (endpoint: string) => ({ endpoint, credentials: localCredentials });

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
 * stops or answers an execution holds no @aws-sdk/client-sfn (its import graph decides).
 * Such a client joins these with adoptClient: dispose destroys it and tracing captures it.
 */
export function createClients(config: Config): AwsClients {
  const { endpoints, region } = config;
  const dynamodb = withoutSdkLogging(
    new DynamoDBClient({
      region,
      ...(endpoints.dynamodb ? localOptions(endpoints.dynamodb) : {}),
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
          ...(endpoints.sqs ? { ...localOptions(endpoints.sqs), useQueueUrlAsEndpoint: false } : {}),
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
