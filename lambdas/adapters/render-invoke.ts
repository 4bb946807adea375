// The PageRenderer of a process that has no browser (the synchronous functions on AWS): it asks
// the render function's direct entry (lambdas/workers/render-direct.ts) with a Lambda Invoke,
// RequestResponse, and waits at most for what the request has left. Whatever goes wrong (the
// function's own failure, a throttle, an error, no answer in time) rejects with a FetchFailure,
// so the page ends as a render that failed in this process would: mapped by the engine.
import { InvokeCommand, type InvokeCommandOutput, LambdaClient } from '@aws-sdk/client-lambda';
import type { Config } from '../config';
import { FetchFailure, type FetchedPage } from '../ports/fetcher';
import type { PageRenderer, RenderRequest } from '../ports/renderer';
import { adoptClient, type AwsClients, withoutSdkLogging } from './clients';
import { decodeRendered, type RenderDirectRequest } from './render-invoke-wire';

export interface InvokeRendererOptions {
  client: LambdaClient;
  /** The render function's name or ARN. */
  functionName: string;
  /** The render function's page budget (PDS_RENDER_BUDGET_MS). */
  pageBudgetMs: number;
  /** Added to the page budget for the function's start (Chromium unpacks on a cold start). Default 8 s. */
  launchMs?: number;
  /** Below this much time left before the request's deadline, no render is asked for. Default 2 s. */
  minimumMs?: number;
}

export function createInvokeRenderer(options: InvokeRendererOptions): PageRenderer {
  const launchMs = options.launchMs ?? 8000;
  const minimumMs = options.minimumMs ?? 2000;
  return {
    async render(request: RenderRequest): Promise<FetchedPage> {
      const waitMs = Math.min(
        options.pageBudgetMs + launchMs,
        (request.deadline ?? Number.POSITIVE_INFINITY) - Date.now(),
      );
      if (waitMs < minimumMs) throw new FetchFailure('timeout', 'no time left in the request to render the page');
      const payload: RenderDirectRequest = request.countryCode
        ? { url: request.url, countryCode: request.countryCode }
        : { url: request.url };
      const command = new InvokeCommand({
        FunctionName: options.functionName,
        InvocationType: 'RequestResponse',
        Payload: new TextEncoder().encode(JSON.stringify(payload)),
      });
      let answer: InvokeCommandOutput;
      try {
        answer = await options.client.send(command, { abortSignal: AbortSignal.timeout(waitMs) });
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'AbortError' || name === 'TimeoutError')
          throw new FetchFailure('timeout', `the render function did not answer within ${waitMs} ms`);
        throw new FetchFailure(
          'network',
          `the render function could not be asked: ${name}: ${(error as Error).message}`.slice(0, 300),
        );
      }
      const text = answer.Payload ? new TextDecoder().decode(answer.Payload) : '';
      if (answer.FunctionError) throw new FetchFailure('network', `the render function failed: ${text}`.slice(0, 300));
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new FetchFailure('network', 'the render function answered something else than JSON');
      }
      return decodeRendered(parsed);
    },
  };
}

/** The renderer of a process configured with a render function (PDS_RENDER_FUNCTION): its client joins `clients`. */
export function invokeRendererFor(
  config: Pick<Config, 'region' | 'renderBudgetMs'> & { renderFunction: string },
  clients: AwsClients,
): PageRenderer {
  const client = adoptClient(clients, withoutSdkLogging(new LambdaClient({ region: config.region })));
  return createInvokeRenderer({ client, functionName: config.renderFunction, pageBudgetMs: config.renderBudgetMs });
}
