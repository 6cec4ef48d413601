// Records the fingerprint of each newly published event schema in libs/contracts/schemas/fingerprints.json:
// `npm run schemas:record`. It never rewrites a recorded one: a published schema that changed is refused
// here as in CI (libs/contracts/src/contracts.spec.ts), and the change belongs in a new version's file.
import { writeFileSync } from 'node:fs';
import {
  fingerprintProblems,
  FINGERPRINTS_FILE,
  recordedFingerprints,
  schemaFingerprints,
} from '@pgw/contracts';

function main(): number {
  const current = schemaFingerprints();
  const recorded = recordedFingerprints();
  const problems = fingerprintProblems(current, recorded);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n`);
    return 1;
  }
  const added = Object.keys(current).filter((path) => recorded[path] === undefined);
  writeFileSync(FINGERPRINTS_FILE, `${JSON.stringify(current, null, 2)}\n`);
  process.stdout.write(
    added.length === 0 ? 'every schema was recorded already\n' : `recorded ${added.join(', ')}\n`,
  );
  return 0;
}

process.exitCode = main();
