// Lambda proxy integrations that API Gateway invokes with one IAM role instead of one resource
// policy statement (an AWS::Lambda::Permission) per route: the same access, ~45 fewer resources
// of CloudFormation's 500, so the stack has room for the capabilities still to come.
import type { HttpRouteIntegrationBindOptions, HttpRouteIntegrationConfig } from 'aws-cdk-lib/aws-apigatewayv2';
import { IntegrationCredentials } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/** The role API Gateway assumes to invoke the route handlers. */
export const apiInvokeRole = (scope: Construct, id: string): Role =>
  new Role(scope, id, {
    assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
    description: 'HTTP API: invokes the route handlers',
  });

export class RoleInvokedLambdaIntegration extends HttpLambdaIntegration {
  constructor(
    id: string,
    handler: IFunction,
    private readonly role: IRole,
  ) {
    super(id, handler);
    handler.grantInvoke(role);
  }

  // No resource-based permission: the role's policy is the grant.
  protected completeBind(_options: HttpRouteIntegrationBindOptions): void {}

  bind(options: HttpRouteIntegrationBindOptions): HttpRouteIntegrationConfig {
    return { ...super.bind(options), credentials: IntegrationCredentials.fromRole(this.role) };
  }
}
