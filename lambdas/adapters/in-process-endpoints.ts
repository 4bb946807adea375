// Engines that run inside this process (the local runtime's DynamoDB and SQS on worker threads, its
// Step Functions service on the main thread) can be reached without a socket: the engine registers
// an SDK request handler for its endpoint, and a client built here for that endpoint (clients.ts,
// sfn-client.ts) sends its requests through it. Clients in
// other processes, and any client built before the engine registered, use the endpoint's HTTP
// server as before. On AWS nothing registers, so nothing changes.

/** What the SDK needs of a request handler (the `requestHandler` client option). */
export interface InProcessRequestHandler {
  handle(request: unknown, options?: { abortSignal?: unknown }): Promise<{ response: unknown }>;
  updateHttpClientConfig(key: never, value: never): void;
  httpHandlerConfigs(): Record<string, never>;
  /** Clients call this when they are destroyed; the engine's handler outlives them. */
  destroy(): void;
}

/** An InProcessRequestHandler from its `handle`: nothing to configure, and a client's destroy leaves it serving (other clients share it). */
export const inProcessRequestHandler = (handle: InProcessRequestHandler['handle']): InProcessRequestHandler => ({
  handle,
  updateHttpClientConfig() {},
  httpHandlerConfigs: () => ({}),
  destroy() {},
});

const handlers = new Map<string, InProcessRequestHandler>();

/** Serves `endpoint` through `handler` in this process until the returned function is called. */
export function serveInProcess(endpoint: string, handler: InProcessRequestHandler): () => void {
  handlers.set(endpoint, handler);
  return () => {
    if (handlers.get(endpoint) === handler) handlers.delete(endpoint);
  };
}

/** The in-process handler of `endpoint`, if an engine of this process serves it. */
export const inProcessHandler = (endpoint: string): InProcessRequestHandler | undefined => handlers.get(endpoint);
