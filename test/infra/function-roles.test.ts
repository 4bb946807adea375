// Functions of one permission set share a role (lib/function-roles.ts). Sharing must give no
// function a permission it would not have with a role of its own: for every function, the
// (effect, action, resource, condition) tuples its role allows are compared with the same stack
// synthesized with a role per function (CDK's default, the grants made by the same calls), over
// the repository's sources and topology tables (unbundled). Each stack is synthesized once: the
// shared-role stack on the snapshot index is the one `npm run synth` builds (realStack()).
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { ProductDataStack } from '../../lib/product-data-stack';
import { realStack, synthStack } from './helpers';
import { mentions, resourcesOf, roleOfFunction } from './template-queries';

type Search = 'snapshot' | 'opensearch';

const synth = (search: Search, shareRoles: boolean, change?: (stack: ProductDataStack) => void) =>
  synthStack({ search, shareRoles }, { change });

const ownRoles = new Map<Search, ReturnType<typeof synthStack>>();
/** The stack with a role per function, synthesized once per search engine. */
const withOwnRoles = (search: Search) => {
  if (!ownRoles.has(search)) ownRoles.set(search, synth(search, false));
  return ownRoles.get(search)!;
};
/** The stack with shared roles; on the snapshot index (the defaults), the one realStack() holds. */
const withSharedRoles = (search: Search) => (search === 'snapshot' ? realStack() : synth(search, true));

const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** A role's permissions as atomic tuples: inline policies, overflow managed policies, AWS managed policies. */
function permissionsOfRole(template: Template, roleId: string): Set<string> {
  const documents = [
    ...Object.values(resourcesOf(template, 'AWS::IAM::Policy')),
    ...Object.values(resourcesOf(template, 'AWS::IAM::ManagedPolicy')),
  ]
    .filter((policy) => mentions(policy.Properties!.Roles, roleId))
    .map((policy) => policy.Properties!.PolicyDocument);
  const role = resourcesOf(template, 'AWS::IAM::Role')[roleId].Properties!;
  documents.push(...(role.Policies ?? []).map((policy: { PolicyDocument: unknown }) => policy.PolicyDocument));
  const tuples = new Set<string>(
    (role.ManagedPolicyArns ?? []).map((arn: unknown) => `managed ${JSON.stringify(arn)}`),
  );
  for (const document of documents)
    for (const statement of document.Statement)
      for (const action of asArray(statement.Action))
        for (const resource of asArray(statement.Resource))
          tuples.add(JSON.stringify([statement.Effect, action, resource, statement.Condition ?? null]));
  return tuples;
}

/** Every function's permissions, by the function's logical id. */
function permissionsByFunction(template: Template): Map<string, Set<string>> {
  return new Map(
    Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).map(([id, fn]) => [
      id,
      permissionsOfRole(template, roleOfFunction(fn)),
    ]),
  );
}

/** Functions whose permissions differ between the two, with what each gained or lost. */
function differences(expected: Map<string, Set<string>>, actual: Map<string, Set<string>>) {
  return [...expected].flatMap(([id, wanted]) => {
    const got = actual.get(id) ?? new Set<string>();
    const gained = [...got].filter((tuple) => !wanted.has(tuple));
    const lost = [...wanted].filter((tuple) => !got.has(tuple));
    return gained.length + lost.length > 0 ? [{ id, gained, lost }] : [];
  });
}

const roleCount = (template: Template) => Object.keys(resourcesOf(template, 'AWS::IAM::Role')).length;

describe.each<Search>(['snapshot', 'opensearch'])('shared function roles (search on %s)', (search) => {
  it('give every function exactly the permissions it has with a role of its own, with far fewer roles', () => {
    const own = withOwnRoles(search).template;
    const shared = withSharedRoles(search);
    const before = permissionsByFunction(own);
    const after = permissionsByFunction(shared.template);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    expect(differences(before, after)).toEqual([]);
    // Routes fall into a handful of sets: no role per route is left.
    const routeRoles = new Set([...shared.stack.routeFunctions.values()].map((fn) => fn.role));
    expect(routeRoles.size).toBeLessThan(10);
    expect(roleCount(shared.template)).toBeLessThan(roleCount(own) - 40);
  }, 180_000);
});

describe('the comparison', () => {
  it('names the functions of a set that would gain a grant made to one of them', () => {
    const own = permissionsByFunction(withOwnRoles('snapshot').template);
    const grant = new PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::elsewhere/*'] });
    const { stack, template } = synth('snapshot', true, (s) =>
      s.routeFunctions.get('v1Listings')?.addToRolePolicy(grant),
    );
    const target = stack.routeFunctions.get('v1Listings')!;
    const targetId = stack.getLogicalId(target.node.defaultChild as never);
    // With a role of its own, only the function asked for it.
    const expected = new Map(own);
    expected.set(
      targetId,
      new Set([...own.get(targetId)!, JSON.stringify(['Allow', 's3:GetObject', 'arn:aws:s3:::elsewhere/*', null])]),
    );
    const found = differences(expected, permissionsByFunction(template));
    const sharing = [...stack.routeFunctions.values()].filter((fn) => fn !== target && fn.role === target.role);
    expect(sharing.length).toBeGreaterThan(0);
    expect(found.map((difference) => difference.id).sort()).toEqual(
      sharing.map((fn) => stack.getLogicalId(fn.node.defaultChild as never)).sort(),
    );
  }, 180_000);
});
