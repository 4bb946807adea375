// Small readers over a synthesized template, so assertions can name what they check.
import type { Template } from 'aws-cdk-lib/assertions';

type Resource = { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
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
export const mentions = (value: unknown, logicalId: string): boolean => JSON.stringify(value).includes(`"${logicalId}"`);
