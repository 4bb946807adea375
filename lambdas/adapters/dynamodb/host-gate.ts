// Per-host politeness in the table, so it holds across every worker (Lambdas, local processes).
// One item per host (HOSTGATE#<host>):
//   nextStart    the earliest start not yet booked: a worker books the starts [start, start + k *
//                spacing) with start = max(now, nextStart) and moves nextStart to the end, in one
//                conditional write (nextStart unchanged since it read it, or <= now). Spacing is
//                the GCRA of domain/ratelimit with a burst of one, used to book a turn (the caller
//                waits for it) rather than to refuse one.
//   pausedUntil  a 429/503 Retry-After from any worker: no start is booked before it.
//   lease<i>, holder<i>  slot i (i < the host's concurrency) is in flight until lease<i> (epoch
//                ms) for holder<i>. Booking a start takes a slot whose lease has ended, in the same
//                write; ending the request frees it (conditional on being its holder). A worker
//                that dies leaves the lease to expire (leaseMs), which frees the slot for others.
//
// Per fetch, in SDK calls: one UpdateItem books the turn (a write may book up to
// maxStartsPerWrite starts for the requests waiting in this process, one slot each), one
// UpdateItem frees the slot; a slot freed while another request of this process waits for the
// host is handed over by that request's booking instead (no separate free). A start booked ahead
// (the host was busy) is confirmed by one consistent GetItem at its time, so a pause written
// meanwhile by another worker is kept. A write that loses a race costs a GetItem and another
// write. A worker finding every slot held reads the item again at most once per spacing (at
// least 50 ms, at most 1 s apart).
//
// Requests of one process on one host are served in arrival order by one driver loop; at most
// one write per host and process is in flight.
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HostPaused, type HostGate, type HostPolicy } from '../../ports/host-gate';
import { deadline, hostGateItem, isConditionalFailure } from './keys';

export interface DynamoHostGateOptions {
  /** How long a slot stays taken when its holder never frees it (a crashed worker). Default 60 s. */
  leaseMs?: number;
  /** A pause that ends later than this from now is refused at once (HostPaused), not waited for. Default 30 s. */
  maxPauseWaitMs?: number;
  /** Starts one write may book for requests waiting in this process (each on its own slot). Default 4. */
  maxStartsPerWrite?: number;
  clock?: () => number;
}

/** What this process last read or wrote of a host's item. */
export interface GateSnapshot {
  nextStart: number;
  pausedUntil: number;
  /** Per slot: lease end (0: free) and holder. */
  leases: number[];
  holders: Array<string | undefined>;
}

/** This process's slots on a host: true while booked or in use, false while idle (kept for a waiting request). */
export type OwnSlots = Map<number, boolean>;

export interface TurnPlan {
  slots: number[];
  start: number;
  /** nextStart after the booking. */
  next: number;
}

const EMPTY: GateSnapshot = { nextStart: 0, pausedUntil: 0, leases: [], holders: [] };
/** A host item untouched this long is deleted by the table's TTL. */
const ITEM_TTL_S = 24 * 3600;
/** Hosts whose snapshot this process keeps (idle ones are forgotten first). */
const MAX_HOSTS = 10_000;

/** The turns one write books, or null when no slot is known to be free. */
export function planTurns(
  known: GateSnapshot,
  own: OwnSlots,
  policy: HostPolicy,
  waiting: number,
  now: number,
  maxStarts: number,
): TurnPlan | null {
  const slots: number[] = [];
  const cap = Math.min(waiting, maxStarts);
  for (let i = 0; i < policy.concurrency && slots.length < cap; i++) {
    const held = own.get(i);
    if (held === false || (held === undefined && (known.leases[i] ?? 0) <= now)) slots.push(i);
  }
  if (!slots.length) return null;
  const start = Math.max(now, known.nextStart, known.pausedUntil);
  return { slots, start, next: start + slots.length * Math.max(0, policy.spacingMs) };
}

function snapshotOf(item: Record<string, unknown> | undefined): GateSnapshot {
  if (!item) return { ...EMPTY, leases: [], holders: [] };
  const leases: number[] = [];
  const holders: Array<string | undefined> = [];
  for (const [name, value] of Object.entries(item)) {
    const slot = /^(lease|holder)(\d+)$/.exec(name);
    if (!slot) continue;
    if (slot[1] === 'lease') leases[Number(slot[2])] = Number(value);
    else holders[Number(slot[2])] = String(value);
  }
  return { nextStart: Number(item.nextStart ?? 0), pausedUntil: Number(item.pausedUntil ?? 0), leases, holders };
}

interface Waiter {
  policy: HostPolicy;
  resolve(release: () => void): void;
  reject(error: unknown): void;
}

interface HostState {
  known: GateSnapshot | null;
  waiters: Waiter[];
  own: OwnSlots;
  driving: boolean;
  /** Ends the driver's wait early (a slot of this process went idle). */
  wake: (() => void) | null;
}

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

  const stateOf = (host: string): HostState => {
    let state = hosts.get(host);
    if (state) return state;
    if (hosts.size >= MAX_HOSTS) {
      for (const [name, other] of hosts)
        if (!other.driving && !other.own.size) {
          hosts.delete(name);
          break;
        }
    }
    state = { known: null, waiters: [], own: new Map(), driving: false, wake: null };
    hosts.set(host, state);
    return state;
  };

  const read = async (host: string): Promise<GateSnapshot> => {
    const out = await documents.send(
      new GetCommand({ TableName: tableName, Key: hostGateItem(host), ConsistentRead: true }),
      deadline(),
    );
    return snapshotOf(out.Item);
  };

  /** One conditional write booking `plan`; the snapshot it leaves, or null after a lost race (snapshot re-read). */
  const book = async (host: string, state: HostState, plan: TurnPlan, policy: HostPolicy, now: number) => {
    const known = state.known ?? EMPTY;
    const names: Record<string, string> = { '#next': 'nextStart', '#pause': 'pausedUntil', '#ttl': 'expiresAt' };
    const values: Record<string, unknown> = {
      ':next': plan.next,
      ':start': plan.start,
      ':now': now,
      ':me': me,
      ':ttl': Math.ceil((plan.next + leaseMs) / 1000) + ITEM_TTL_S,
    };
    const sets = ['#next = :next', '#ttl = :ttl'];
    // Every start booked before began by now when nextStart <= now: any such item admits this booking.
    const conditions = [
      known.nextStart > now ? '#next = :known' : '(attribute_not_exists(#next) OR #next <= :now)',
      '(attribute_not_exists(#pause) OR #pause <= :start)',
    ];
    if (known.nextStart > now) values[':known'] = known.nextStart;
    plan.slots.forEach((slot, j) => {
      Object.assign(names, { [`#l${slot}`]: `lease${slot}`, [`#h${slot}`]: `holder${slot}` });
      values[`:l${slot}`] = plan.start + j * Math.max(0, policy.spacingMs) + leaseMs;
      sets.push(`#l${slot} = :l${slot}`, `#h${slot} = :me`);
      conditions.push(
        state.own.get(slot) === false ? `#h${slot} = :me` : `(attribute_not_exists(#l${slot}) OR #l${slot} <= :now)`,
      );
    });
    try {
      const out = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          // DynamoDB answers a lost race with the item, sparing the read (the local engine does not).
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        deadline(),
      );
      return snapshotOf(out.Attributes);
    } catch (error) {
      if (!isConditionalFailure(error)) throw error;
      const item = (error as { Item?: Record<string, unknown> }).Item;
      state.known = item ? snapshotOf(unmarshallFlat(item)) : await read(host);
      // A slot this process thought idle-and-its-own may have expired into another's hands.
      for (const [slot, busy] of state.own) if (!busy && state.known.holders[slot] !== me) state.own.delete(slot);
      return null;
    }
  };

  /** Frees a slot nobody here waits for. A failure only leaves the lease to expire. */
  const free = (host: string, state: HostState, slot: number) => {
    state.own.delete(slot);
    documents
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: hostGateItem(host),
          UpdateExpression: 'REMOVE #l, #h',
          ConditionExpression: '#h = :me',
          ExpressionAttributeNames: { '#l': `lease${slot}`, '#h': `holder${slot}` },
          ExpressionAttributeValues: { ':me': me },
        }),
        deadline(),
      )
      .then(() => {
        if (state.known && !state.own.has(slot)) state.known.leases[slot] = 0;
      })
      .catch(() => undefined);
  };

  /** A slot of this process went idle: a waiting request takes it over, else it is freed. */
  const idle = (host: string, state: HostState, slot: number) => {
    state.own.set(slot, false);
    if (state.waiters.length) {
      if (state.driving) state.wake?.();
      else void drive(host, state);
    } else free(host, state, slot);
  };

  const releaseOf = (host: string, state: HostState, slot: number) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      idle(host, state, slot);
    };
  };

  /** Hands the booked start to its request at its time, unless a pause written meanwhile forbids it. */
  const startAt = async (host: string, state: HostState, waiter: Waiter, slot: number, start: number, now: number) => {
    const ahead = start - now;
    if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, ahead));
    try {
      const late = clock() - start;
      // A start woken much later than booked would crowd the next worker's booked start.
      const tooLate = waiter.policy.spacingMs > 0 && late > Math.max(25, waiter.policy.spacingMs / 4);
      if (!tooLate && ahead > 0) state.known = await read(host);
      if (tooLate || (state.known?.pausedUntil ?? 0) > start) {
        state.waiters.unshift(waiter);
        idle(host, state, slot);
        return;
      }
    } catch (error) {
      waiter.reject(error);
      idle(host, state, slot);
      return;
    }
    waiter.resolve(releaseOf(host, state, slot));
  };

  /** Waits up to `ms`, or until a slot of this process goes idle (then true). */
  const rest = (state: HostState, ms: number) =>
    new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        state.wake = null;
        resolve(false);
      }, ms);
      state.wake = () => {
        clearTimeout(timer);
        state.wake = null;
        resolve(true);
      };
    });

  async function drive(host: string, state: HostState): Promise<void> {
    state.driving = true;
    try {
      while (state.waiters.length) {
        const now = clock();
        const policy = state.waiters[0].policy;
        const known = state.known ?? EMPTY;
        if (known.pausedUntil > now + maxPauseWaitMs) {
          for (const waiter of state.waiters.splice(0)) waiter.reject(new HostPaused(host, known.pausedUntil));
          break;
        }
        const plan = planTurns(known, state.own, policy, state.waiters.length, now, maxStarts);
        if (!plan) {
          // Every slot is held: by this process (wait for one to go idle), or by others (read again later).
          const othersHold = [...Array(policy.concurrency).keys()].some((slot) => !state.own.has(slot));
          const pollMs = Math.min(1000, Math.max(50, policy.spacingMs));
          if (!(await rest(state, othersHold ? pollMs : leaseMs)) && othersHold) state.known = await read(host);
          continue;
        }
        const written = await book(host, state, plan, policy, now);
        if (!written) continue;
        state.known = written;
        plan.slots.forEach((slot, j) => {
          state.own.set(slot, true);
          const start = plan.start + j * Math.max(0, policy.spacingMs);
          void startAt(host, state, state.waiters.shift()!, slot, start, now);
        });
      }
    } catch (error) {
      for (const waiter of state.waiters.splice(0)) waiter.reject(error);
    } finally {
      state.driving = false;
      for (const [slot, busy] of state.own) if (!busy) free(host, state, slot);
    }
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
      state.known = { ...(state.known ?? EMPTY), pausedUntil: Math.max(untilMs, state.known?.pausedUntil ?? 0) };
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: hostGateItem(host),
            UpdateExpression: 'SET #pause = :until, #ttl = :ttl',
            ConditionExpression: 'attribute_not_exists(#pause) OR #pause < :until',
            ExpressionAttributeNames: { '#pause': 'pausedUntil', '#ttl': 'expiresAt' },
            ExpressionAttributeValues: { ':until': untilMs, ':ttl': Math.ceil(untilMs / 1000) + ITEM_TTL_S },
          }),
          deadline(),
        );
      } catch (error) {
        if (!isConditionalFailure(error)) throw error; // a longer pause is already there
      }
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
