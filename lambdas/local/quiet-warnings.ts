// Imported first by the local entry points (bin/local.ts): drops the one AWS SDK warning that
// every start on Node 20 would print (SDK releases after the first week of January 2027 need
// Node >= 22; the Lambda runtime is Node 22 already). Every other warning is emitted as before.
const SDK_NODE_WARNING = /^NodeVersionSupportWarning\b/;

const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === 'string' ? warning : warning?.message;
  const name = typeof warning === 'string' ? undefined : warning?.name;
  if (SDK_NODE_WARNING.test(text ?? '') || name === 'NodeVersionSupportWarning') return;
  emitWarning(warning, ...rest);
}) as typeof process.emitWarning;

export {};
