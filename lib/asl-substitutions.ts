// The ASL substitution convention of lambdas/topology/workflows.ts, in one place for the stack
// (CDK definitionSubstitutions) and the tests (placeholder -> sample ARN for validation).
import type { WorkflowSpec } from '../lambdas/topology/workflows';

export const fnArnKey = (fnKey: string): string => `${fnKey}FnArn`;
export const queueUrlKey = (queueKey: string): string => `${queueKey}QueueUrl`;

/** Every `${Name}` placeholder in an ASL text, sorted and unique. */
export function placeholdersIn(aslText: string): string[] {
  const names = new Set<string>();
  for (const match of aslText.matchAll(/\$\{([A-Za-z0-9_]+)\}/g)) names.add(match[1]);
  return [...names].sort();
}

/** Substitution keys the convention defines for a workflow. */
export function substitutionKeys(workflow: WorkflowSpec): string[] {
  return [...Object.keys(workflow.tasks).map(fnArnKey), ...Object.keys(workflow.queues).map(queueUrlKey)].sort();
}

/**
 * Builds the substitutions of a workflow from resolvers of task functions and queues, and
 * rejects an ASL whose placeholders the convention does not cover (it would deploy with a
 * literal `${...}` in a Resource).
 */
export function buildSubstitutions(
  workflow: WorkflowSpec,
  aslText: string,
  functionArn: (workerName: string) => string,
  queueUrl: (queueName: string) => string,
): Record<string, string> {
  const substitutions: Record<string, string> = {};
  for (const [fnKey, worker] of Object.entries(workflow.tasks)) substitutions[fnArnKey(fnKey)] = functionArn(worker);
  for (const [queueKey, queueName] of Object.entries(workflow.queues)) {
    substitutions[queueUrlKey(queueKey)] = queueUrl(queueName);
  }
  const unresolved = placeholdersIn(aslText).filter((name) => !(name in substitutions));
  if (unresolved.length > 0) {
    throw new Error(
      `Workflow "${workflow.name}" (${workflow.aslFile}) uses placeholders with no tasks/queues entry: ` +
        unresolved.map((name) => '${' + name + '}').join(', '),
    );
  }
  return substitutions;
}

/** Valid-looking ARNs and URLs for the placeholders, for validating ASL without a deployment. */
export function sampleSubstitutions(
  aslText: string,
  region = 'us-east-1',
  account = '123456789012',
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of placeholdersIn(aslText)) {
    if (name.endsWith('FnArn')) values[name] = `arn:aws:lambda:${region}:${account}:function:${name.slice(0, -5)}`;
    else if (name.endsWith('QueueUrl'))
      values[name] = `https://sqs.${region}.amazonaws.com/${account}/${name.slice(0, -8)}`;
  }
  return values;
}

export function substitute(aslText: string, values: Record<string, string>): string {
  return aslText.replace(/\$\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}
