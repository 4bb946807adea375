// Per-host politeness in the table, so it holds across every worker (Lambdas, local processes).
// One item per host (HOSTGATE#<host>):
//   nextStart    the earliest start nobody has booked yet. A worker books the starts [start,
//                start + k * spacing), start = max(now, nextStart), and moves nextStart to their
//                end, in one conditional write (nextStart unchanged since it was read, or <= now).
//                This is the GCRA of domain/ratelimit with a burst of one, booking a turn the
//                caller waits for instead of refusing it; bookings are served in the order taken,
//                whichever worker took them.
//   pausedUntil  a 429/503 Retry-After from any worker: no start is booked or begun before it,
//                once written (a start whose slot was taken before still goes).
//   lease<i>, holder<i>  slot i (i < the host's concurrency) is in flight until lease<i> (epoch
//                ms) for holder<i>. A booked start takes a slot whose lease has ended just before
//                it begins (conditional on the slot being free and the host not paused), ending
//                the request frees it (conditional on being its holder). A worker that dies
//                leaves its lease to expire (leaseMs), which frees the slot for the others.
//
// Per fetch, in SDK calls: a booking (one UpdateItem for up to maxStartsPerWrite starts of this
// process's waiting requests; on an idle host it takes the slot too), the slot's take (one
// UpdateItem, unless the booking took it) and its free (one UpdateItem): two writes for a lone
// fetch, 2 + 1/k under load. A write that loses a race costs another write (and, on an engine
// that does not return the item with the failure, a GetItem). Nobody polls: a waiting worker
// holds a booked start and sleeps until it. A start booked when every slot turns out held when
// it comes is given up and booked again (the host's concurrency, not its spacing, binds then).
//
// Per process and host, one driver books for the waiting requests in arrival order, holding at
// most the host's concurrency in booked starts, so bookings of all workers interleave.
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HostPaused, type HostGate, type HostPolicy } from '../../ports/host-gate';
import { deadline, hostGateItem, isConditionalFailure } from './keys';

export interface DynamoHostGateOptions {
  /** How long a slot stays taken when its holder never frees it (a crashed worker). Default 60 s. */
  leaseMs?: number;
  /** A pause that ends later than this from now is refused at once (HostPaused), not waited for. Default 30 s. */
  maxPauseWaitMs?: number;
  /** Starts one write may book for requests waiting in this process. Default 4. */
  maxStartsPerWrite?: number;
  clock?: () => number;
}

/** What this process last read or wrote of a host's item. */
export interface GateSnapshot {
  nextStart: number;
  pausedUntil: number;
  /** Per slot: lease end (absent or 0: free). */
  leases: number[];
}

const EMPTY: GateSnapshot = { nextStart: 0, pausedUntil: 0, leases: [] };
/** A host item untouched this long is deleted by the table's TTL. */
const ITEM_TTL_S = 24 * 3600;
/** Hosts whose snapshot this process keeps (idle ones are forgotten first). */
const MAX_HOSTS = 10_000;

/**
 * The slot a start at `start` tries: consecutive starts take turns over the slots (the slot used
 * `concurrency` starts ago has most likely ended), else any slot free in the snapshot.
 */
export function slotFor(known: GateSnapshot, policy: HostPolicy, start: number, now: number): number {
  const turn = Math.floor(policy.spacingMs > 0 ? start / policy.spacingMs : start);
  const preferred = turn % policy.concurrency;
  const free = (slot: number) => (known.leases[slot] ?? 0) <= now;
  if (free(preferred)) return preferred;
  for (let slot = 0; slot < policy.concurrency; slot++) if (free(slot)) return slot;
  return preferred;
}

function snapshotOf(item: Record<string, unknown> | undefined): GateSnapshot {
  if (!item) return { ...EMPTY, leases: [] };
  const leases: number[] = [];
  for (const [name, value] of Object.entries(item)) {
    const slot = /^lease(\d+)$/.exec(name);
    if (slot) leases[Number(slot[1])] = Number(value);
  }
  return { nextStart: Number(item.nextStart ?? 0), pausedUntil: Number(item.pausedUntil ?? 0), leases };
}

interface Waiter {
  policy: HostPolicy;
  resolve(release: () => void): void;
  reject(error: unknown): void;
}

interface HostState {
  known: GateSnapshot;
  waiters: Waiter[];
  /** Starts booked and not yet begun (or given up). */
  booked: number;
  driving: boolean;
  /** Ends the driver's wait early (a booked start began or was given up). */
  wake: (() => void) | null;
}

type Write = Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName' | 'Key'>;

export function dynamoHostGate(
  documents: DynamoDBDocumentClient,
  tableName: string,
  options: DynamoHostGateOptions = {},
): HostGate {
  const leaseMs = options.leaseMs ?? 60_000;
  const maxPauseWaitMs = options.maxPauseWaitMs ?? 30_000;
  const maxStarts = Math.max(1, options.maxStartsPerWrite ?? 4);
  const clock = options.clock ?? Date.now;
  const me = randomUUID();
  const hosts = new Map<string, HostState>();
  // A start is booked a write's round trip ahead, and its slot taken a write's round trip before
  // it, so the request leaves at the booked instant.
  const writes = roundTrips();

  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (state) return state;
    if (hosts.size >= MAX_HOSTS) {
      for (const [name, other] of hosts)
        if (!other.driving && !other.booked) {
          hosts.delete(name);
          break;
        }
    }
    state = { known: EMPTY, waiters: [], booked: 0, driving: false, wake: null };
    hosts.set(host, state);
    return state;
  };

  /** One conditional write; true when it held. A lost race refreshes the snapshot. */
  const write = async (host: string, state: HostState, input: Write): Promise<boolean> => {
    const begun = clock();
    try {
      const out = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          ...input,
          ReturnValues: 'ALL_NEW',
          // DynamoDB answers a lost race with the item, sparing the read (the local engine does not).
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        deadline(),
      );
      writes.add(clock() - begun);
      state.known = snapshotOf(out.Attributes);
      return true;
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      writes.add(clock() - begun);
      const item = (error as { Item?: Record<string, unknown> }).Item;
      state.known = item ? snapshotOf(unmarshallFlat(item)) : await read(host);
      return false;
    }
  };

  const read = async (host: string): Promise<GateSnapshot> => {
    const out = await documents.send(
      new GetCommand({ TableName: tableName, Key: hostGateItem(host), ConsistentRead: true }),
      deadline(),
    );
    return snapshotOf(out.Item);
  };

  const ttl = (ms: number) => Math.ceil(ms / 1000) + ITEM_TTL_S;

  /**
   * Books `count` starts, at `earliest` or later; resolves with the first one's instant, or null
   * after a lost race (the snapshot re-read). A busy host (nextStart past `earliest`): nextStart
   * moves on by the starts' spacings whatever its value, so busy bookers never race each other;
   * theirs are the starts just before its new value. An idle or paused one: nextStart restarts
   * from `earliest`, and the write may take the first start's slot too.
   */
  const book = async (
    host: string,
    state: HostState,
    earliest: number,
    count: number,
    spacing: number,
    slot?: number,
  ) => {
    const names: Record<string, string> = { '#next': 'nextStart', '#pause': 'pausedUntil', '#ttl': 'expiresAt' };
    const delta = count * spacing;
    if (state.known.nextStart > earliest) {
      const advanced = await write(host, state, {
        UpdateExpression: 'SET #next = #next + :delta, #ttl = :ttl',
        ConditionExpression: '#next > :earliest AND (attribute_not_exists(#pause) OR #pause <= #next)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':delta': delta,
          ':earliest': earliest,
          ':ttl': ttl(state.known.nextStart + delta),
        },
      });
      return advanced ? state.known.nextStart - delta : null;
    }
    const values: Record<string, unknown> = { ':next': earliest + delta, ':start': earliest, ':ttl': ttl(earliest) };
    const sets = ['#next = :next', '#ttl = :ttl'];
    const conditions = [
      '(attribute_not_exists(#next) OR #next <= :start)',
      '(attribute_not_exists(#pause) OR #pause <= :start)',
    ];
    if (slot !== undefined) {
      Object.assign(names, { '#lease': `lease${slot}`, '#holder': `holder${slot}` });
      Object.assign(values, { ':lease': earliest + leaseMs, ':me': me, ':now': clock() });
      sets.push('#lease = :lease', '#holder = :me');
      conditions.push('(attribute_not_exists(#lease) OR #lease <= :now)');
    }
    const restarted = await write(host, state, {
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return restarted ? earliest : null;
  };

  /** Takes slot `slot` for the start at `start`: free now, and the host not paused past the start. */
  const take = (host: string, state: HostState, slot: number, start: number) =>
    write(host, state, {
      UpdateExpression: 'SET #lease = :lease, #holder = :me, #ttl = :ttl',
      ConditionExpression:
        '(attribute_not_exists(#lease) OR #lease <= :now) AND (attribute_not_exists(#pause) OR #pause <= :start)',
      ExpressionAttributeNames: {
        '#lease': `lease${slot}`,
        '#holder': `holder${slot}`,
        '#pause': 'pausedUntil',
        '#ttl': 'expiresAt',
      },
      ExpressionAttributeValues: {
        ':lease': start + leaseMs,
        ':me': me,
        ':now': clock(),
        ':start': start,
        ':ttl': ttl(start),
      },
    });

  /** Frees a slot at the end of its request. A failure only leaves the lease to expire. */
  const free = (host: string, state: HostState, slot: number) =>
    documents
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          UpdateExpression: 'REMOVE #lease, #holder',
          ConditionExpression: '#holder = :me',
          ExpressionAttributeNames: { '#lease': `lease${slot}`, '#holder': `holder${slot}` },
          ExpressionAttributeValues: { ':me': me },
        }),
        deadline(),
      )
      .then(() => {
        state.known.leases[slot] = 0;
      })
      .catch(() => undefined);

  const releaseOf = (host: string, state: HostState, slot: number) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void free(host, state, slot);
    };
  };

  /**
   * Begins a booked start: takes a slot just before it (unless the booking took one) and hands it
   * to the request at the start. Given up, the request waits for a new booking: when a pause came
   * meanwhile, when every slot stays held, or when this process woke too late (a start well after
   * its booked instant would crowd the next worker's).
   */
  async function begin(host: string, state: HostState, waiter: Waiter, start: number, slot?: number) {
    const { policy } = waiter;
    const tolerance = Math.max(15, policy.spacingMs / 10);
    let taken = slot;
    try {
      // Bounded: one try per slot, and only until the start has passed.
      for (let tries = 0; taken === undefined && tries < policy.concurrency; tries++) {
        await sleepUntil(start - writes.ms);
        if (clock() > start + tolerance || state.known.pausedUntil > start) break;
        const candidate = slotFor(state.known, policy, start, clock());
        if (await take(host, state, candidate, start)) taken = candidate;
        else if (state.known.pausedUntil > start) break;
      }
      await sleepUntil(start);
      if (taken !== undefined && !(policy.spacingMs > 0 && clock() - start > tolerance)) {
        waiter.resolve(releaseOf(host, state, taken));
        return;
      }
      if (taken !== undefined) void free(host, state, taken);
      state.waiters.unshift(waiter);
    } catch (error) {
      if (taken !== undefined) void free(host, state, taken);
      waiter.reject(error);
    } finally {
      state.booked--;
      if (state.driving) state.wake?.();
      else if (state.waiters.length) void drive(host, state);
    }
  }

  async function drive(host: string, state: HostState): Promise<void> {
    state.driving = true;
    try {
      while (state.waiters.length) {
        const now = clock();
        const { policy } = state.waiters[0]!;
        const { pausedUntil, nextStart } = state.known;
        if (pausedUntil > now + maxPauseWaitMs) {
          for (const waiter of state.waiters.splice(0)) waiter.reject(new HostPaused(host, pausedUntil));
          break;
        }
        const count = Math.min(state.waiters.length, policy.concurrency - state.booked, maxStarts);
        if (count <= 0) {
          await rest(state);
          continue;
        }
        const earliest = Math.max(now + writes.ms, pausedUntil);
        // An idle host with a free slot: the booking takes the first start's slot too.
        const candidate = slotFor(state.known, policy, earliest, now);
        const idle = nextStart <= earliest && earliest === now + writes.ms;
        const slot = idle && (state.known.leases[candidate] ?? 0) <= now ? candidate : undefined;
        const start = await book(host, state, earliest, count, policy.spacingMs, slot);
        if (start === null) continue;
        for (let j = 0; j < count; j++) {
          state.booked++;
          void begin(host, state, state.waiters.shift()!, start + j * policy.spacingMs, j === 0 ? slot : undefined);
        }
      }
    } catch (error) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    } finally {
      state.driving = false;
    }
  }

  /** Waits until a booked start of this process began or was given up. */
  const rest = (state: HostState) =>
    new Promise<void>((resolve) => {
      state.wake = () => {
        state.wake = null;
        resolve();
      };
    });

  /** Timers may fire a millisecond early: never hand out a start before its instant. */
  async function sleepUntil(at: number): Promise<void> {
    for (let ms = at - clock(); ms > 0; ms = at - clock()) await new Promise((resolve) => setTimeout(resolve, ms));
  }

  return {
    acquire(host, policy) {
      const safe: HostPolicy = {
        spacingMs: Math.max(0, policy.spacingMs),
        concurrency: Math.max(1, Math.floor(policy.concurrency)),
      };
      return new Promise((resolve, reject) => {
        const state = stateOf(host);
        state.waiters.push({ policy: safe, resolve, reject });
        if (!state.driving) void drive(host, state);
      });
    },
    async pause(host, untilMs) {
      const state = stateOf(host);
      state.known = { ...state.known, pausedUntil: Math.max(untilMs, state.known.pausedUntil) };
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: hostGateItem(host),
            UpdateExpression: 'SET #pause = :until, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#pause) OR #pause < :until',
            ExpressionAttributeNames: { '#pause': 'pausedUntil', '#ttl': 'expiresAt' },
            ExpressionAttributeValues: { ':until': untilMs, ':ttl': ttl(untilMs) },
          }),
          deadline(),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw error; // a longer pause is already there
      }
    },
  };
}

/**
 * A round trip to allow for (ms): its smoothed mean plus twice its mean deviation, as TCP times
 * its retransmissions, so a booked start is rarely missed because the table answered slowly.
 */
function roundTrips() {
  let mean = 10;
  let deviation = 5;
  return {
    get ms() {
      return Math.ceil(Math.min(1000, mean + 2 * deviation));
    },
    add(sample: number) {
      deviation = 0.75 * deviation + 0.25 * Math.abs(mean - sample);
      mean = 0.875 * mean + 0.125 * Math.max(0, sample);
    },
  };
}

/** The item of a ConditionalCheckFailedException comes in the wire format ({ N: '1' }): flat values suffice here. */
function unmarshallFlat(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).map(([name, value]) => {
      const typed = value as { N?: string; S?: string } | undefined;
      return [name, typed?.N !== undefined ? Number(typed.N) : (typed?.S ?? value)];
    }),
  );
}
