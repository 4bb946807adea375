// One IAM role per permission set instead of one per function. The route handlers and the task
// workers fall into a handful of sets (a read-only catalog route asks for exactly what every
// other one asks for), and a role with its default policy is two of CloudFormation's 500
// resources per stack: ~50 routes on roles of their own would take ~100. Functions still get
// their grants through the usual calls (table.grantReadWriteData(fn), ...), which land on the
// shared role; a set joins only functions whose every grant is the same (the key below names
// all of them), and test/infra/function-roles.test.ts checks each function's permissions against
// a synth with a role per function.
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';

/**
 * Everything a function is granted besides what every function has (logs, X-Ray). Two functions
 * with equal sets may share a role; anything granted outside these fields must not vary within
 * a kind.
 */
export interface PermissionSet {
  /** What kind of function (routes, task workers): its grants beyond these fields are the kind's. */
  kind: 'route' | 'task';
  /** Reads and writes the table. */
  table: boolean;
  /** Workflows whose executions it starts, stops and describes. */
  workflows: readonly string[];
  /** Queues it sends to. */
  sendsTo: readonly string[];
  /** Reads the search index (the snapshot bucket or the OpenSearch index). */
  searches: boolean;
  /** Invokes the render function's direct entry. */
  rendersDirectly: boolean;
}

/** `route-table-extract-crawl-search`: the set's name, for the role's id and description. */
export function permissionSetName(set: PermissionSet): string {
  return [
    set.kind,
    set.table ? 'table' : 'public',
    ...sortedUnique(set.workflows),
    ...sortedUnique(set.sendsTo).map((queue) => `to-${queue}`),
    ...(set.searches ? ['search'] : []),
    ...(set.rendersDirectly ? ['render'] : []),
  ].join('-');
}

const sortedUnique = (names: readonly string[]): string[] => [...new Set(names)].sort();

/** The stack's shared function roles, one per permission set, made on first use. */
export class FunctionRoles {
  private readonly roles = new Map<string, Role>();

  constructor(
    private readonly scope: Construct,
    /** false: every function gets a role of its own (CDK's default), as the test compares. */
    private readonly share: boolean,
    private readonly idOf: (name: string) => string,
  ) {}

  /** The role for this set, or undefined when roles are not shared (the function makes its own). */
  roleFor(set: PermissionSet): Role | undefined {
    if (!this.share) return undefined;
    const name = permissionSetName(set);
    let role = this.roles.get(name);
    if (!role) {
      role = new Role(this.scope, `${this.idOf(name)}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `Lambda functions with the permission set ${name}`,
        // What CDK attaches to a function's own role: writing its logs.
        managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
      });
      this.roles.set(name, role);
    }
    return role;
  }

  /** Sets made so far, by name. */
  get sets(): ReadonlyMap<string, Role> {
    return this.roles;
  }
}
