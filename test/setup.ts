// aws-local-stepfunctions 3 needs Node 22's Promise.withResolvers; polyfilled for Node 20.
import '../lambdas/local/polyfills';
