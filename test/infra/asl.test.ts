// Every ASL file validates (asl-validator through aws-local-stepfunctions, ARN checks on) once its
// placeholders are filled with valid-looking ARNs, and agrees with its WORKFLOWS entry.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { placeholdersIn, sampleSubstitutions, substitute, substitutionKeys } from '../../lib/asl-substitutions';
import { WORKFLOWS } from '../../lambdas/topology/workflows';
import { FIXTURES, ROOT } from './helpers';

const STATEMACHINES = path.join(ROOT, 'statemachines');
const aslFiles = existsSync(STATEMACHINES)
  ? readdirSync(STATEMACHINES)
      .filter((file) => file.endsWith('.asl.json'))
      .sort()
  : [];
const FIXTURE_ASL = path.join(FIXTURES, 'statemachines', 'fan-out.asl.json');

/**
 * Fills the placeholders, then constructs the interpreter's StateMachine, which validates the
 * definition or throws. asl-validator accepts any `${...}` as a Resource (it allows CDK
 * substitutions), so a placeholder left over is rejected here first.
 */
function validate(aslText: string): void {
  const filled = substitute(aslText, sampleSubstitutions(aslText));
  const leftOver = placeholdersIn(filled);
  if (leftOver.length > 0)
    throw new Error(`placeholders outside the FnArn/QueueUrl convention: ${leftOver.join(', ')}`);
  new StateMachine(JSON.parse(filled), { validationOptions: { checkArn: true, checkPaths: true } });
}

describe('validation catches broken definitions', () => {
  it('accepts the fixture', () => {
    expect(() => validate(readFileSync(FIXTURE_ASL, 'utf8'))).not.toThrow();
  });

  it('rejects a transition to a state that does not exist', () => {
    const definition = JSON.parse(readFileSync(FIXTURE_ASL, 'utf8'));
    definition.States.Prepare.Next = 'Nowhere';
    expect(() => validate(JSON.stringify(definition))).toThrow();
  });

  it('rejects a placeholder outside the convention', () => {
    const definition = JSON.parse(readFileSync(FIXTURE_ASL, 'utf8'));
    definition.States.Finish.Resource = '${Unknown}';
    expect(() => validate(JSON.stringify(definition))).toThrow(/Unknown/);
  });

  it('rejects a Resource that is not an ARN', () => {
    const definition = JSON.parse(readFileSync(FIXTURE_ASL, 'utf8'));
    definition.States.Finish.Resource = 'finish-function';
    expect(() => validate(JSON.stringify(definition))).toThrow(/Resource/);
  });
});

describe.runIf(aslFiles.length > 0)('statemachines/*.asl.json', () => {
  it.each(aslFiles)('%s is valid ASL with its placeholders filled', (file) => {
    const text = readFileSync(path.join(STATEMACHINES, file), 'utf8');
    expect(() => validate(text)).not.toThrow();
  });

  it.each(aslFiles)('%s belongs to a workflow in WORKFLOWS', (file) => {
    expect(WORKFLOWS.map((workflow) => workflow.aslFile)).toContain(file);
  });
});

describe.runIf(WORKFLOWS.length > 0)('WORKFLOWS', () => {
  it.each(WORKFLOWS.map((workflow) => [workflow.name, workflow] as const))(
    '%s: tasks and queues match the placeholders of its ASL exactly',
    (_name, workflow) => {
      const file = path.join(STATEMACHINES, workflow.aslFile);
      expect(existsSync(file), workflow.aslFile).toBe(true);
      expect(placeholdersIn(readFileSync(file, 'utf8'))).toEqual(substitutionKeys(workflow));
    },
  );
});
