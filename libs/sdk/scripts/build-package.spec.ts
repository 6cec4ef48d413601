import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { installPackedSdk } from './packed';

// The package as an integrator gets it (packed.ts), used from CommonJS, from an ES module and from
// TypeScript.

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pgw-sdk-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SIGNED = `
const { createHmac } = require('node:crypto');
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.paid', data: { object: { id: 'ch_1', object: 'charge' } } });
const t = Math.floor(Date.now() / 1000);
const header = 't=' + t + ',v1=' + createHmac('sha256', 'whsec_x').update(t + '.' + body).digest('hex');
`;

describe('the published package', () => {
  it('packs, installs and works from CommonJS, ES modules and TypeScript', async () => {
    // Proves exports, bundles and declarations together, the way npm publish would ship them.
    const packed = await installPackedSdk(dir);
    expect([packed.name, packed.version]).toEqual(['@pgw/sdk', '0.1.0']);
    expect(packed.files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.cjs',
        'dist/index.mjs',
        'dist/index.d.ts',
        'dist/generated/api.d.ts',
      ]),
    );
    expect(packed.files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const app = packed.appDir;

    writeFileSync(
      join(app, 'check.cjs'),
      `${SIGNED}
const { Gateway, constructEvent, NotFoundError, GatewayError } = require('@pgw/sdk');
const gateway = new Gateway({ apiKey: 'sk_test_x' });
console.log(JSON.stringify([typeof gateway.charges.create, constructEvent(body, header, 'whsec_x').data.object.id, new NotFoundError({ type: 'not_found_error', code: 'resource_not_found', message: 'm', param: null, status: 404, requestId: null, idempotencyKey: null }) instanceof GatewayError]));
`,
    );
    writeFileSync(
      join(app, 'check.mjs'),
      `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
${SIGNED}
const { Gateway, constructEvent } = await import('@pgw/sdk');
console.log(JSON.stringify([typeof new Gateway({ apiKey: 'sk_test_x' }).receivables.list, constructEvent(body, header, 'whsec_x').type]));
`,
    );
    const run = (file: string) =>
      JSON.parse(execFileSync(process.execPath, [file], { cwd: app, encoding: 'utf8' }));
    expect(run('check.cjs')).toEqual(['function', 'ch_1', true]);
    expect(run('check.mjs')).toEqual(['function', 'charge.paid']);

    writeFileSync(
      join(app, 'check.mts'),
      `import { Gateway, type Charge, type GatewayError } from '@pgw/sdk';
const gateway = new Gateway({ apiKey: 'sk_test_x', retry: { retriesMax: 3 } });
export async function sale(token: string): Promise<Charge['status']> {
  const charge = await gateway.charges.create({ amount: 100, payment_method: 'CREDIT_CARD', installments: 1, card_token: token,
    buyer: { name: 'Ana', email: 'a@b.co', phone: '21998765432', document: '39053344705', address: { line_1: 'Rua A, 1', zip_code: '20040030', city: 'Rio', state: 'RJ' } } });
  // @ts-expect-error amount_cents is a field of the answer, not of the request
  await gateway.charges.create({ amount_cents: 100, payment_method: 'PIX', buyer: charge.buyer });
  for await (const receivable of gateway.receivables.list({ status: 'pending' })) console.log(receivable.id);
  return charge.status;
}
export const code = (e: GatewayError) => e.code;
`,
    );
    const program = ts.createProgram([join(app, 'check.mts')], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
      typeRoots: [join(app, 'node_modules', '@types')],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
