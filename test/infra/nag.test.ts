// The stack through cdk-nag's AwsSolutions rules, as `npm run synth` runs them (bin/app.ts): the
// repository's own stack, in both search modes, synthesizes with no finding left unanswered. A
// new resource or grant with a finding fails here, naming the finding and how to answer it
// (fix it, or acknowledge it next to the resource with the reason: lib/audit.ts). The synth runs
// CDK's built-in CloudFormation validation too, with cdk.json's default rules as errors, as `npm run
// synth` does: the other infra tests' stacks skip it (test/infra/helpers.ts), so this file is where
// a template breaking a default rule fails.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ProductDataStack } from '../../lib/product-data-stack';
import { ROOT } from './helpers';

/** The findings left after synthesis with the AwsSolutions pack (empty: the synth passes). */
function findings(search: 'snapshot' | 'opensearch', change?: (stack: ProductDataStack) => void): string[] {
  const context = {
    ...JSON.parse(readFileSync(path.join(ROOT, 'cdk.json'), 'utf8')).context,
    'aws:cdk:bundling-stacks': [],
  };
  const app = new App({ context, builtinCloudFormationValidation: true });
  const stack = new ProductDataStack(app, 'AuditedStack', { env: { region: 'eu-west-1' }, search });
  change?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return [];
  } catch (error) {
    const report = (error as Error).message;
    const found = [...report.matchAll(/\n\s+(\S+) \S+\n\s+Acknowledge with '([^']+)'/g)].map(
      ([, where, id]) => `${where}: ${id}`,
    );
    // A failure that names no finding (a broken default rule, a synth error) fails as it is.
    if (!found.length) throw error;
    return found;
  }
}

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unanswered in the stack with the snapshot index (the default)', () => {
    expect(findings('snapshot')).toEqual([]);
  }, 120_000);

  it('finds nothing unanswered with search on OpenSearch', () => {
    expect(findings('opensearch')).toEqual([]);
  }, 120_000);

  it("fails on a template that breaks CloudFormation's default rules", () => {
    expect(() =>
      findings('snapshot', (stack) =>
        (stack.workers.values().next().value!.node.defaultChild as CfnFunction).addPropertyOverride(
          'MemorySize',
          'lots',
        ),
      ),
    ).toThrow(/MemorySize: 'lots' is not of type 'integer' \(CloudFormation Validate\)/);
  }, 120_000);

  it('fails on a new finding: a wildcard grant of a kind nobody answered', () => {
    const found = findings('snapshot', (stack) =>
      stack.workers
        .values()
        .next()
        .value!.addToRolePolicy(new PolicyStatement({ actions: ['s3:*'], resources: ['*'] })),
    );
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /ServiceRole\/DefaultPolicy\/Resource: AwsSolutions::AwsSolutions-IAM5\[Action::s3:\*\]$/,
        ),
        expect.stringMatching(/ServiceRole\/DefaultPolicy\/Resource: AwsSolutions::AwsSolutions-IAM5\[Resource::\*\]$/),
      ]),
    );
    expect(found).toHaveLength(2);
  }, 120_000);
});
