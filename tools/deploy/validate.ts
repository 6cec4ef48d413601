// Validates rendered objects against the Kubernetes OpenAPI schemas (kubernetes-models' compiled
// validators), offline. kubernetes-models is published as ES modules only, which jest's CommonJS runtime
// cannot load, so the spec runs this file in its own Node process:
//   npx tsx tools/deploy/validate.ts dev prod      → one JSON line: [{ env, object, errors }]
//   … | npx tsx tools/deploy/validate.ts -         → the same for a JSON array of objects on stdin
// and a person can run it the same way. The schemas catch wrong types, enums and missing required
// fields; field-name typos are caught earlier, by tsc, since manifests.ts is typed with the same models.
// The Prometheus Operator's kinds (monitoring.coreos.com) have no model there: monitoring-crds.ts holds
// their shape, closed to unknown fields since tsc cannot check them.
import { MONITORING_API_VERSION, type K8sObject } from './manifests';
import { monitoringErrors } from './monitoring-crds';
import { ENVIRONMENTS, render, type Environment } from './overlays';
import { cliArgs } from './generate';

export interface Finding {
  env: string;
  object: string;
  errors: string[];
}

/** The kubernetes-models module of an apiVersion and kind: core `v1/Pod`, named groups `apps/v1/Deployment`. */
export function modelModule(apiVersion: string, kind: string): string {
  return `kubernetes-models/${apiVersion}/${kind}`;
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

export async function validateObjects(
  env: string,
  objects: readonly K8sObject[],
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const object of objects) {
    const id = `${object.kind}/${object.metadata.name}`;
    if (object.apiVersion === MONITORING_API_VERSION) {
      findings.push({
        env,
        object: id,
        errors: monitoringErrors(object) ?? [
          `no schema for ${object.apiVersion} ${object.kind} in monitoring-crds.ts`,
        ],
      });
      continue;
    }
    let Class: ModelClass | undefined;
    try {
      const module = (await import(modelModule(object.apiVersion, object.kind))) as Record<
        string,
        ModelClass
      >;
      Class = module[object.kind];
    } catch (error) {
      findings.push({
        env,
        object: id,
        errors: [`no schema for ${object.apiVersion} ${object.kind}: ${String(error)}`],
      });
      continue;
    }
    if (Class === undefined) {
      findings.push({
        env,
        object: id,
        errors: [`no model ${object.kind} in ${object.apiVersion}`],
      });
      continue;
    }
    try {
      new Class(object).validate();
      findings.push({ env, object: id, errors: [] });
    } catch (error) {
      const details = (error as { errors?: Array<{ instancePath?: string; message?: string }> })
        .errors;
      findings.push({
        env,
        object: id,
        errors: details?.map((d) => `${d.instancePath ?? ''} ${d.message ?? ''}`.trim()) ?? [
          String(error),
        ],
      });
    }
  }
  return findings;
}

async function main(): Promise<void> {
  // `-`: objects on stdin; otherwise the environments to render and validate (all by default).
  const args = cliArgs(
    `npx tsx tools/deploy/validate.ts [- | ${ENVIRONMENTS.join(' ')}...]`,
    {},
    true,
  ).positionals;
  if (args[0] === '-') {
    // Objects as a JSON array on stdin (the spec feeds broken ones to prove the validator rejects them).
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const objects = JSON.parse(Buffer.concat(chunks).toString('utf8')) as K8sObject[];
    process.stdout.write(`${JSON.stringify(await validateObjects('stdin', objects))}\n`);
    return;
  }
  const envs = (args.length > 0 ? args : [...ENVIRONMENTS]) as Environment[];
  const findings: Finding[] = [];
  for (const env of envs) findings.push(...(await validateObjects(env, render(env))));
  process.stdout.write(`${JSON.stringify(findings)}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(2);
  });
}
