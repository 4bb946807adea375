// Counts AWS SDK calls by command name in this process (benchmarks only): every SDK client's
// send() goes through the one base class, patched here once.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface CallCounter {
  /** Calls since the last reset, by command name, most frequent first. */
  counts(): Array<[string, number]>;
  reset(): void;
}

let counter: CallCounter | undefined;

export function countSdkCalls(): CallCounter {
  if (counter) return counter;
  const calls = new Map<string, number>();
  const base = Object.getPrototypeOf(DynamoDBClient.prototype) as {
    send: (command: object, ...rest: unknown[]) => unknown;
  };
  const send = base.send;
  base.send = function (this: unknown, command: object, ...rest: unknown[]) {
    const name = command.constructor.name;
    calls.set(name, (calls.get(name) ?? 0) + 1);
    return send.call(this, command, ...rest);
  };
  counter = {
    counts: () => [...calls].sort((a, b) => b[1] - a[1]),
    reset: () => calls.clear(),
  };
  return counter;
}
