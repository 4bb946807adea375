// A capability whose module is loaded on first use, behind the same typed value the container
// always had. Every Lambda bundle is split by esbuild at `import()`: a route that never calls the
// extraction engine, the crawler or agentic search never loads (parses, compiles, initialises)
// their chunks, yet `deps.crawl.jobs.start(...)` reads exactly as before.
//
// Only values whose every member (at any depth) is an async function can stand in: a call
// returns a promise either way, so the caller cannot tell. The type parameter is checked for it
// at compile time (`lazyAsync<Crawl>` with a synchronous member does not type-check), so nothing
// "throws at run time if missing".

type AsyncFunction = (...args: never[]) => Promise<unknown>;

/** Dotted paths of members that are not async functions (never when T is fully async). */
export type SyncMembers<T, Path extends string = ''> = T extends AsyncFunction
  ? never
  : T extends (...args: never[]) => unknown
    ? Path
    : T extends object
      ? { [K in keyof T & string]-?: SyncMembers<T[K], `${Path}.${K}`> }[keyof T & string]
      : Path;

/**
 * `load` runs once, on the first call of any member (a failed load is retried by the next call).
 * `eager` members are answered directly, without loading (e.g. a synchronous reader of state that
 * only exists once loaded); they are excluded from the async check.
 */
export function lazyAsync<T extends object, E extends Partial<T> = Record<never, never>>(
  load: () => Promise<T>,
  eager?: E,
  ..._fullyAsync: SyncMembers<Omit<T, keyof E>> extends never
    ? []
    : [error: `not async: ${SyncMembers<Omit<T, keyof E>>}`]
): T {
  let loading: Promise<T> | undefined;
  const loaded = (): Promise<T> => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const proxies = new Map<string, unknown>();
  const at = (path: readonly string[]): unknown => {
    const key = path.join('.');
    const known = proxies.get(key);
    if (known) return known;
    const proxy = new Proxy(function lazyMember() {}, {
      get(_target, property) {
        if (path.length === 0 && eager && typeof property === 'string' && property in eager)
          return eager[property as keyof E];
        // Not a thenable (awaiting the value itself must not load it) and no symbol protocols.
        if (typeof property === 'symbol' || property === 'then') return undefined;
        return at([...path, property]);
      },
      apply(_target, _this, args: unknown[]) {
        return loaded().then((value) => {
          let owner: Record<string, unknown> = value as Record<string, unknown>;
          for (const step of path.slice(0, -1)) owner = owner[step] as Record<string, unknown>;
          const method = owner[path[path.length - 1]] as (...a: unknown[]) => unknown;
          return method.apply(owner, args);
        });
      },
    });
    proxies.set(key, proxy);
    return proxy;
  };
  return at([]) as T;
}

/** A once-built async value (the module and the instance it makes). */
export function onceAsync<T>(build: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    value ??= build().catch((error: unknown) => {
      value = undefined;
      throw error;
    });
    return value;
  };
}
