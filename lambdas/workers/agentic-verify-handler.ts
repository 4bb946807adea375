// SQS consumer of agentic-verify: one message = one candidate, checked against its live page (the
// synchronous extraction path); its worker imports the engine and fetcher, not the search index.
import type { SQSEvent } from 'aws-lambda';
import { agenticVerifyJobsOf } from '../composition/agentic-verify';
import type { Container } from '../composition/container';
import { eachMessage, report } from './agentic-step-handlers';

export const agenticVerifyHandler = (event: SQSEvent, deps: Container) =>
  eachMessage(event, 'agentic-verify', async (message) => {
    const outcome = await agenticVerifyJobsOf(deps).steps.verify(message);
    await report(deps, message, outcome);
  });
