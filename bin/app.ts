// CDK app: `npm run synth` / `npx cdk deploy`. Synthesizes offline: the region comes from the
// environment (or us-east-1), never from a metadata or credentials lookup.
import { App, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ProductDataStack } from '../lib/product-data-stack';

const app = new App();

const removal = String(app.node.tryGetContext('pds:tableRemovalPolicy') ?? 'retain').toLowerCase();
if (removal !== 'retain' && removal !== 'destroy') {
  throw new Error(`Context pds:tableRemovalPolicy must be "retain" or "destroy", got "${removal}"`);
}

new ProductDataStack(app, String(app.node.tryGetContext('pds:stackName') ?? 'ProductDataService'), {
  env: {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: process.env.CDK_DEFAULT_REGION ?? process.env.AWS_REGION ?? 'us-east-1',
  },
  tableRemovalPolicy: removal === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  description: 'Product-data API: HTTP API, Lambda, DynamoDB, SQS, Step Functions',
});

// cdk-nag's AwsSolutions rules: the synth fails on a finding not fixed or acknowledged with its
// reason (lib/audit.ts; test/infra/nag.test.ts).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

app.synth();
