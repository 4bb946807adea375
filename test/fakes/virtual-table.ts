// What the host gate's simulation (test/bench/host-gate.ts) and unit test run the table's gate on:
// virtual time (setTimeout and the gate's clock advance instantly from one timer to the next) and
// an in-memory table that applies
// the gate's update and condition expressions atomically, each call answered after a DynamoDB-like
// round trip. The adapter's code runs unchanged; only the table and the clock are stand-ins, so a
// run of minutes of 200 workers takes seconds and does not depend on this machine's load.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Item = Record<string, unknown>;

/** Virtual time: install() replaces setTimeout/clearTimeout; run() advances timer to timer. */
export function virtualTime(start: number) {
  let now = start;
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  return {
    now: () => now,
    install() {
      globalThis.setTimeout = ((fn: () => void, ms = 0) => {
        const id = ++seq;
        timers.set(id, { at: now + Math.max(0, ms), fn });
        return id;
      }) as unknown as typeof setTimeout;
      globalThis.clearTimeout = ((id: number) => void timers.delete(id)) as typeof clearTimeout;
    },
    uninstall() {
      Object.assign(globalThis, real);
    },
    /** Runs timers in time order (ties in creation order) until `until` or none are left. */
    async run(until: number) {
      // Bounded: virtual time only moves forward, and stops at `until`.
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve)); // every promise chain settles first
        let next: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of timers) if (!next || entry[1].at < next[1].at) next = entry;
        if (!next || next[1].at > until) return;
        timers.delete(next[0]);
        now = next[1].at;
        next[1].fn();
      }
    },
  };
}

/** A document client over an in-memory table; `latency()` is each call's round trip (ms). */
export function virtualTable(latency: () => number): DynamoDBDocumentClient {
  const items = new Map<string, Item>();
  const keyOf = (key: Record<string, unknown>) => `${key.pk}\n${key.sk}`;
  const answer = <T>(work: () => T) =>
    new Promise<T>((resolve, reject) => {
      const trip = latency();
      // The table applies the call halfway through its round trip.
      setTimeout(() => {
        let result: T;
        try {
          result = work();
        } catch (error) {
          setTimeout(() => reject(error), trip / 2);
          return;
        }
        setTimeout(() => resolve(result), trip / 2);
      }, trip / 2);
    });
  const send = (command: unknown) => {
    if (command instanceof GetCommand) {
      const item = items.get(keyOf(command.input.Key!));
      return answer(() => ({ Item: item ? { ...item } : undefined }));
    }
    if (command instanceof UpdateCommand) return answer(() => update(items, keyOf(command.input.Key!), command.input));
    throw new Error('the virtual table answers GetCommand and UpdateCommand only');
  };
  return { send } as unknown as DynamoDBDocumentClient;
}

/** A virtual table that notes each call it answers: 'write' (an update) or 'read'. */
export function countingTable(latency: () => number): { table: DynamoDBDocumentClient; calls: string[] } {
  const table = virtualTable(latency);
  const calls: string[] = [];
  const send = (command: { input: { UpdateExpression?: string } }) => {
    calls.push(command.input.UpdateExpression ? 'write' : 'read');
    return table.send(command as never);
  };
  return { table: { send } as unknown as DynamoDBDocumentClient, calls };
}

/** What laneRun needs of a gate (the port's acquire). */
interface Gate {
  acquire(host: string, policy: { spacingMs: number; concurrency: number }): Promise<() => void>;
}

/**
 * Pages of one host fetched on virtual time: each gate (a worker) takes `perGate` turns over its
 * `lanes` lanes; a lane takes a turn, holds it `holdMs` (the fetch), releases it and parses for
 * `parseMs` before its next turn. Returns the instants of the turns, in order.
 */
export async function laneRun(
  time: ReturnType<typeof virtualTime>,
  gates: Gate[],
  run: {
    host: string;
    policy: { spacingMs: number; concurrency: number };
    lanes: number;
    perGate: number;
    holdMs: number;
    parseMs: number;
  },
): Promise<number[]> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const starts: number[] = [];
  time.install();
  try {
    const running = Promise.all(
      gates.flatMap((gate) => {
        let left = run.perGate;
        return Array.from({ length: run.lanes }, async () => {
          while (left > 0) {
            left--;
            const release = await gate.acquire(run.host, run.policy);
            starts.push(time.now());
            await sleep(run.holdMs);
            release();
            await sleep(run.parseMs);
          }
        });
      }),
    );
    await time.run(time.now() + 3_600_000);
    await running;
  } finally {
    time.uninstall();
  }
  return starts.sort((a, b) => a - b);
}

function update(items: Map<string, Item>, key: string, input: UpdateCommand['input']) {
  const names = input.ExpressionAttributeNames ?? {};
  const values = (input.ExpressionAttributeValues ?? {}) as Item;
  const old = items.get(key);
  const item: Item = { ...old };
  const operand = (token: string) => (token.startsWith('#') ? item[names[token]!] : values[token]);
  if (input.ConditionExpression && !evaluate(tokens(input.ConditionExpression), operand)) {
    const failure = Object.assign(new Error('The conditional request failed'), {
      name: 'ConditionalCheckFailedException',
    });
    // As DynamoDB does with ReturnValuesOnConditionCheckFailure ALL_OLD: the item in the wire format.
    if (old && input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD')
      Object.assign(failure, {
        Item: Object.fromEntries(
          Object.entries(old).map(([name, v]) => [name, typeof v === 'number' ? { N: String(v) } : { S: String(v) }]),
        ),
      });
    throw failure;
  }
  const [action, ...rest] = input.UpdateExpression!.split(' ');
  for (const clause of rest.join(' ').split(',')) {
    if (action === 'REMOVE') {
      delete item[names[clause.trim()]!];
      continue;
    }
    const [target, expression] = clause.split('=').map((part) => part.trim());
    const [left, plus, right] = expression!.split(' ');
    const value = plus === '+' ? Number(operand(left!)) + Number(operand(right!)) : operand(left!);
    item[names[target!]!] = value;
  }
  items.set(key, item);
  return { Attributes: { ...item } };
}

const tokens = (expression: string) => expression.match(/\(|\)|<=|>=|<>|[=<>]|[#:]?\w+/g) ?? [];

/** OR over AND over atoms: ( ... ), attribute_not_exists(#a), operand <op> operand. */
function evaluate(list: string[], operand: (token: string) => unknown): boolean {
  let at = 0;
  const or = (): boolean => {
    let value = and();
    while (list[at] === 'OR') {
      at++;
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = atom();
    while (list[at] === 'AND') {
      at++;
      value = atom() && value;
    }
    return value;
  };
  const atom = (): boolean => {
    const token = list[at++]!;
    if (token === '(') {
      const value = or();
      at++; // ')'
      return value;
    }
    if (token === 'attribute_not_exists') {
      const value = operand(list[at + 1]!) === undefined;
      at += 3; // ( #name )
      return value;
    }
    const op = list[at++]!;
    const [a, b] = [operand(token), operand(list[at++]!)];
    if (a === undefined || b === undefined) return false;
    const [x, y] = typeof a === 'number' || typeof b === 'number' ? [Number(a), Number(b)] : [String(a), String(b)];
    return { '=': x === y, '<>': x !== y, '<': x < y, '<=': x <= y, '>': x > y, '>=': x >= y }[op] ?? false;
  };
  return or();
}
