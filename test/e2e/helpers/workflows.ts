// `extras` for startTestService: the embedded Step Functions service running every workflow of
// the topology, plus the SQS pollers, wired into the container's Config as `npm start` does.
import { createClients } from '../../../lambdas/adapters/clients';
import { loadConfig } from '../../../lambdas/config';
import { startStepFunctionsService } from '../../../lambdas/local/stepfunctions/server';
import { startSqsPollers } from '../../../lambdas/local/sqs-poller';
import { ENV } from '../../../lambdas/topology/env';
import { QUEUES } from '../../../lambdas/topology/queues';
import { WORKFLOWS } from '../../../lambdas/topology/workflows';
import type { ExtrasContext } from './service';

export async function startWorkflows({ engines, env, reload }: ExtrasContext): Promise<{ close(): Promise<void> }> {
  const clients = createClients({ ...loadConfig({}), endpoints: { sqs: engines.sqsEndpoint } });
  const sfn = await startStepFunctionsService({
    machines: WORKFLOWS.map((spec) => ({ spec })),
    queueUrls: engines.queueUrls,
    sqs: clients.sqs,
  });
  const added: Record<string, string> = { [ENV.stepFunctionsEndpoint]: sfn.endpoint };
  for (const workflow of WORKFLOWS) added[workflow.envVar] = sfn.stateMachineArns[workflow.name]!;
  Object.assign(env, added);
  reload();
  const pollers = await startSqsPollers({
    sqs: clients.sqs,
    queues: QUEUES,
    queueUrls: engines.queueUrls,
    visibilityTimeoutSeconds: 1,
  });
  return {
    async close() {
      await pollers.stop(1000);
      await sfn.stop();
      clients.sqs.destroy();
    },
  };
}
