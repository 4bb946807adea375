// Counts AWS SDK calls by command name in this process (benchmarks only): every SDK client's
// send() goes through the one base class, patched here once.
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface CallCounter {
  /** Calls since the last reset, by command name, most frequent first. */
  counts(): Array<[string, number]>;
  /**
   * The same calls by what they touch and command ("PRODUCT BatchWrite", "HOSTGATE Update",
   * "SQS ReceiveMessage"), most frequent first: where the calls go. A DynamoDB call is named by
   * its first item's partition key up to the first '#' (a batch call by its first request's).
   */
  byTarget(): Array<[string, number]>;
  /** Calls made inside `aside` since the last reset (the bench's own status polls), by command name. */
  asideCounts(): Array<[string, number]>;
  /** Runs fn with its SDK calls counted apart (asideCounts), not in counts(). */
  aside<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Receives on queues other than these (and their DLQs) are counted apart (idleCounts): the local
   * runtime's pollers of the other workflows' queues, which poll whatever runs (on AWS, Lambda's
   * event source mappings). Unset: every receive counts.
   */
  onlyQueues(names: readonly string[] | null): void;
  /** Receives counted apart by onlyQueues since the last reset. */
  idleCounts(): number;
  reset(): void;
}

const apart = new AsyncLocalStorage<true>();

/** What a call touches: the first key's entity prefix for the table, the service otherwise. */
function targetOf(command: object): string {
  const name = command.constructor.name;
  const input = (command as { input?: Record<string, any> }).input ?? {};
  const prefix = (key: Record<string, any> | undefined) => {
    const pk = key?.pk;
    const text = typeof pk === 'string' ? pk : typeof pk?.S === 'string' ? pk.S : undefined;
    return text?.split('#')[0];
  };
  let entity: string | undefined;
  if (input.Key || input.Item) entity = prefix(input.Key ?? input.Item);
  else if (input.RequestItems) {
    const [first] = Object.values(input.RequestItems) as any[];
    const request = Array.isArray(first) ? first[0] : first?.Keys?.[0];
    entity = prefix(request?.PutRequest?.Item ?? request?.DeleteRequest?.Key ?? request);
  } else if (input.TransactItems) {
    const [first] = input.TransactItems;
    const op = (first ? Object.values(first)[0] : {}) as Record<string, any>;
    entity = prefix(op.Key ?? op.Item);
  } else if (typeof input.ExpressionAttributeValues?.[':pk'] === 'string')
    entity = input.ExpressionAttributeValues[':pk'].split('#')[0];
  else if (input.QueueUrl || input.Entries) entity = 'SQS';
  else if (input.taskToken || input.stateMachineArn || input.executionArn) entity = 'SFN';
  else if (input.IndexName) entity = input.IndexName;
  return `${entity ?? '?'} ${name.replace(/Command$/, '')}`;
}

let counter: CallCounter | undefined;

export function countSdkCalls(): CallCounter {
  if (counter) return counter;
  const calls = new Map<string, number>();
  const asideCalls = new Map<string, number>();
  const targets = new Map<string, number>();
  let own: readonly string[] | null = null;
  let idle = 0;
  const base = Object.getPrototypeOf(DynamoDBClient.prototype) as {
    send: (command: object, ...rest: unknown[]) => unknown;
  };
  const send = base.send;
  base.send = function (this: unknown, command: object, ...rest: unknown[]) {
    const name = command.constructor.name;
    if (own && name === 'ReceiveMessageCommand') {
      const queue = String((command as { input?: { QueueUrl?: string } }).input?.QueueUrl ?? '')
        .split('/')
        .pop()!
        .replace(/-dlq$/, '');
      if (!own.includes(queue)) {
        idle++;
        return send.call(this, command, ...rest);
      }
    }
    const aside = apart.getStore();
    const into = aside ? asideCalls : calls;
    into.set(name, (into.get(name) ?? 0) + 1);
    if (!aside) {
      const target = targetOf(command);
      targets.set(target, (targets.get(target) ?? 0) + 1);
    }
    return send.call(this, command, ...rest);
  };
  counter = {
    counts: () => [...calls].sort((a, b) => b[1] - a[1]),
    byTarget: () => [...targets].sort((a, b) => b[1] - a[1]),
    asideCounts: () => [...asideCalls].sort((a, b) => b[1] - a[1]),
    aside: (fn) => apart.run(true, fn),
    onlyQueues: (names) => {
      own = names;
    },
    idleCounts: () => idle,
    reset: () => {
      calls.clear();
      asideCalls.clear();
      targets.clear();
      idle = 0;
    },
  };
  return counter;
}
