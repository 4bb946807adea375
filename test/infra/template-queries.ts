// Small readers over a synthesized template, so assertions can name what they check.
import type { Template } from 'aws-cdk-lib/assertions';

type Resource = {
  Type: string;
  Properties?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

export const resourcesOf = (template: Template, type: string): Record<string, Resource> =>
  template.findResources(type) as Record<string, Resource>;

export const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

/** Every IAM statement attached to a role, across its inline policies. */
export function statementsOfRole(template: Template, roleLogicalId: string): Statement[] {
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties!.Roles as Array<{ Ref: string }>).some((role) => role.Ref === roleLogicalId))
    .flatMap((policy) => policy.Properties!.PolicyDocument.Statement as Statement[]);
}

/** The role logical id of a Lambda function resource. */
export const roleOfFunction = (fn: Resource): string => fn.Properties!.Role['Fn::GetAtt'][0];

/** Does a statement's Resource mention this logical id (Ref or GetAtt, possibly inside Join)? */
export const mentions = (value: unknown, logicalId: string): boolean =>
  JSON.stringify(value).includes(`"${logicalId}"`);

/** Logical ids a resource depends on: Ref, Fn::GetAtt, ${Name} inside Fn::Sub, DependsOn. */
function dependenciesOf(resource: Record<string, any>, logicalIds: Set<string>): Set<string> {
  const found = new Set<string>(resource.DependsOn ?? []);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'Ref' && typeof inner === 'string') found.add(inner);
      else if (key === 'Fn::GetAtt') found.add(Array.isArray(inner) ? inner[0] : String(inner).split('.')[0]);
      else if (key === 'Fn::Sub') {
        const text = Array.isArray(inner) ? inner[0] : inner;
        for (const match of String(text).matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z0-9.]+)?\}/g)) found.add(match[1]);
      }
      walk(inner);
    }
  };
  walk(resource.Properties);
  return new Set([...found].filter((id) => logicalIds.has(id)));
}

/** A dependency cycle among resources as a list of logical ids, or undefined. CloudFormation
 * rejects cycles only at deploy time. */
export function findCycle(template: Template): string[] | undefined {
  const resources: Record<string, Record<string, any>> = template.toJSON().Resources;
  const ids = new Set(Object.keys(resources));
  const edges = new Map([...ids].map((id) => [id, dependenciesOf(resources[id], ids)]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of edges.get(id)!) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle) return cycle;
  }
  return undefined;
}
