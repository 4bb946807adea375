// The stack audited by cdk-nag's AwsSolutions rules (`npm run synth` runs them; the synth fails
// on a finding nobody answered). Findings about one resource are answered next to it (the API,
// the snapshot bucket, the OpenSearch domain, the indexer's DLQ). The ones every function or
// grant repeats are answered here, by kind, each with its reason: a wildcard is acknowledged only
// where every statement that carries it is one of the kinds below, so a new wildcard of another
// kind (say s3:* on "*") still fails the synth. test/infra/nag.test.ts keeps it so.
import { Aspects, Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { CfnManagedPolicy, CfnPolicy, CfnRole } from 'aws-cdk-lib/aws-iam';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';

/** Acknowledges AwsSolutions findings on a construct (and what it contains), each with its reason. */
export function acknowledge(scope: IConstruct, findings: Record<string, string>): void {
  for (const [id, reason] of Object.entries(findings)) Validations.of(scope).acknowledge({ id, reason });
}

interface WildcardKind {
  reason: string;
  actions: RegExp;
  /** The flattened resource (cdk-nag's form: `<LogicalId.Arn>/index/*`, `*`, ...). */
  resource: RegExp;
}

/** Logical ids of the resources whose grants carry wildcards by design. */
export interface AuditedResources {
  table: IConstruct;
  snapshotBucket?: IConstruct;
  domain?: IConstruct;
}

const idOf = (resource: IConstruct) => Stack.of(resource).getLogicalId(resource.node.defaultChild as never);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function wildcardKinds(resources: AuditedResources): WildcardKind[] {
  const kinds: WildcardKind[] = [
    {
      reason:
        'X-Ray: active tracing writes segments and reads sampling rules; these actions have no resource-level permissions (Resource must be *).',
      actions: /^xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)$/,
      resource: /^\*$/,
    },
    {
      reason:
        'Step Functions task tokens: SendTaskSuccess/Failure/Heartbeat take no resource (the token is the capability), and the state machine that names a worker cannot be named back without a cycle.',
      actions: /^states:SendTask(Success|Failure|Heartbeat)$/,
      resource: /^\*$/,
    },
    {
      reason:
        "Log delivery to CloudWatch Logs (Step Functions' logs; the OpenSearch domain's slow and error logs, whose log resource policy CDK writes with a custom resource): these actions have no resource-level permissions (Resource must be *).",
      actions:
        /^logs:(CreateLogDelivery|GetLogDelivery|UpdateLogDelivery|DeleteLogDelivery|ListLogDeliveries|PutResourcePolicy|DeleteResourcePolicy|DescribeResourcePolicies|DescribeLogGroups)$/,
      resource: /^\*$/,
    },
    {
      reason:
        "CDK's StateMachine.grantRead (the execution reaper): listing and describing activities takes no state machine ARN, and its statements with Resource * share one.",
      actions: /^states:(DescribeActivity|ListActivities|DescribeStateMachine|ListStateMachines)$/,
      resource: /^\*$/,
    },
    {
      reason:
        "A DynamoDB stream event source (the search indexers): ListStreams has no resource-level permission; reading the stream's records is granted on the table's stream ARN only.",
      actions: /^dynamodb:ListStreams$/,
      resource: /^\*$/,
    },
    {
      reason:
        "The single table's global secondary indexes: every access pattern (lambdas/adapters/dynamodb/schema.ts) reads through gsi1/gsi2 of this one table, so grants name its indexes as a group.",
      actions: /^dynamodb:/,
      resource: new RegExp(`^<${escapeRegExp(idOf(resources.table))}\\.Arn>/index/\\*$`),
    },
    {
      reason:
        "Invoking a task worker's versions: a state machine may invoke the function it names and that function's versions (CDK's grantInvoke), nothing else.",
      actions: /^lambda:InvokeFunction$/,
      resource: /^<[A-Za-z0-9]+\.Arn>:\*$/,
    },
    {
      reason:
        "A state machine's executions: their names are execution ids made at run time, so stop/describe are granted on that one state machine's executions.",
      actions: /^states:(StopExecution|DescribeExecution|DescribeStateMachineForExecution|GetExecutionHistory)$/,
      resource: /:execution:.*:\*$/,
    },
  ];
  if (resources.snapshotBucket)
    kinds.push({
      reason:
        "The search snapshot bucket's objects (CDK's grantRead/grantReadWrite action groups): search Lambdas read the snapshot object, the indexer writes it; the bucket holds nothing else.",
      actions: /^s3:/,
      resource: new RegExp(`^<${escapeRegExp(idOf(resources.snapshotBucket))}\\.Arn>(/\\*)?$`),
    });
  if (resources.domain)
    kinds.push({
      reason:
        "The OpenSearch domain's HTTP paths: searching functions may read the products index's paths, the indexer the domain's (fine-grained access control decides inside: readers are mapped read-only).",
      actions: /^es:ESHttp/,
      resource: /(^<[A-Za-z0-9]+\.Arn>\/\*$)|(:domain\/[a-z0-9-]+\/\*$)|(:domain\/[a-z0-9-]+\/products(\/\*)?$)/,
    });
  return kinds;
}

type Statement = { Effect?: string; Action?: string | string[]; Resource?: unknown };
const list = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** The wildcard findings of one policy document that every statement carrying them explains. */
function explainedFindings(document: { Statement?: Statement[] }, kinds: WildcardKind[]): Record<string, string> {
  const explained = new Map<string, string>();
  const unexplained = new Set<string>();
  for (const statement of document.Statement ?? []) {
    if (statement.Effect !== 'Allow') continue;
    const actions = list(statement.Action);
    const resources = list(statement.Resource).map(flattenCfnReference);
    const wildcards = [
      ...actions.filter((a) => a.includes('*')).map((a) => `Action::${a}`),
      ...resources.filter((r) => r.includes('*')).map((r) => `Resource::${r}`),
    ];
    if (!wildcards.length) continue;
    // Explained when each action is of a kind whose resources take in every wildcard resource
    // here (CDK merges statements that share resources, so one may hold several kinds).
    const wildResources = resources.filter((r) => r.includes('*'));
    const used = actions.map((a) =>
      kinds.find((k) => k.actions.test(a) && wildResources.every((r) => k.resource.test(r))),
    );
    const reason = used.every(Boolean) ? [...new Set(used.map((k) => k!.reason))].join(' ') : null;
    for (const finding of wildcards) {
      if (reason && !unexplained.has(finding)) explained.set(finding, reason);
      else {
        unexplained.add(finding);
        explained.delete(finding);
      }
    }
  }
  return Object.fromEntries([...explained].map(([finding, reason]) => [`AwsSolutions-IAM5[${finding}]`, reason]));
}

/**
 * Answers the findings every function and grant repeats. An aspect, so it reads every policy as
 * it stands when the stack is synthesized (a statement added after the constructor included).
 */
export function acknowledgeRepeatedFindings(stack: Stack, resources: AuditedResources): void {
  const kinds = wildcardKinds(resources);
  Aspects.of(stack).add({ visit: (construct) => answer(stack, construct, kinds) });
}

function answer(stack: Stack, construct: IConstruct, kinds: WildcardKind[]): void {
  // On the role (a policy's parent's parent) when there is one: CDK may move statements into
  // overflow policies of the role when it synthesizes, after this runs.
  if (construct instanceof CfnPolicy || construct instanceof CfnManagedPolicy)
    acknowledge(
      construct.node.scope?.node.scope ?? construct,
      explainedFindings(stack.resolve(construct.policyDocument), kinds),
    );
  if (construct instanceof CfnRole) {
    for (const policy of stack.resolve(construct.policies) ?? [])
      acknowledge(construct, explainedFindings(stack.resolve(policy.policyDocument ?? policy.PolicyDocument), kinds));
    const managed = (stack.resolve(construct.managedPolicyArns) ?? []).map(flattenCfnReference);
    for (const arn of managed)
      if (arn.endsWith(':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'))
        acknowledge(construct, {
          [`AwsSolutions-IAM4[Policy::${arn}]`]:
            "AWSLambdaBasicExecutionRole grants only CloudWatch Logs writes (CreateLogGroup, CreateLogStream, PutLogEvents): the documented minimum of a Lambda function's role; a copy of it would say the same.",
        });
  }
  if (construct instanceof CfnFunction)
    acknowledge(construct, {
      'AwsSolutions-L1':
        'The runtime is pinned where functions are built (lib/node-function.ts): the bundles are built and tested for it (lib/bundle.ts target, the bundle test, the cold-start bench); moving to a newer one is a measured change, not a lint fix.',
    });
}
