// Worker and route modules that are not files Node can import: inside the `npm start` bundle
// (bin/start.mjs) each is a chunk, and the bundle's entry registers a loader per source file
// here before the service starts. workers.ts and http-server.ts ask here first and import the
// file otherwise (tsx, tests), so both ways run the same modules.

export type ModuleLoader = () => Promise<Record<string, unknown>>;

const loaders = new Map<string, ModuleLoader>();

/** Keys are absolute source paths without their extension (`/.../lambdas/workers/reaper`). */
export function registerModules(entries: Record<string, ModuleLoader>): void {
  for (const [path, load] of Object.entries(entries)) loaders.set(path, load);
}

/** The registered loader of `path` (absolute, without extension) or of `path/index`. */
export function registeredModule(path: string): ModuleLoader | undefined {
  const base = path.replace(/\.(m?ts|m?js)$/, '').replace(/\/$/, '');
  return loaders.get(base) ?? loaders.get(`${base}/index`);
}
