// `nx g @pgw/tools:service NAME`: a new service in the shape every app follows (docs/engineering.md,
// "A service"): main.ts and instrument.ts (distributed mode), service.ts (the ServiceDefinition that
// startService runs, in the all-in-one as alone), routes/<endpoint>.route.ts with its TypeBox schema and
// its spec beside it (request types come from the schema through the app's TypeBox type provider),
// domain/ (a project tagged type:domain: lint refuses a framework there), data/, consumers/, operations/,
// migrations.ts, project.json with its tags, and the path aliases in tsconfig.base.json. The example
// endpoint (POST /api/v1/<name>/notes) passes through every layer: replace it with the service's own.
import { names, type Tree } from '@nx/devkit';

export interface ServiceGeneratorSchema {
  name: string;
}

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export default async function serviceGenerator(
  tree: Tree,
  options: ServiceGeneratorSchema,
): Promise<void> {
  if (!NAME.test(options.name))
    throw new Error(
      `The service's name is kebab-case (payouts, card-vault), got "${options.name}".`,
    );
  const root = `apps/${options.name}`;
  if (tree.exists(root)) throw new Error(`${root} exists already.`);
  for (const [path, content] of Object.entries(serviceFiles(options.name)))
    tree.write(`${root}/${path}`, content);
  addPathAliases(tree, {
    [`@pgw/${options.name}`]: `${root}/src/index.ts`,
    [`@pgw/${options.name}-domain/*`]: `${root}/src/domain/*`,
  });
}

/** Each alias on a line of its own before the first that sorts after it, the rest of the file as it was. */
function addPathAliases(tree: Tree, aliases: Record<string, string>): void {
  let lines = (tree.read('tsconfig.base.json', 'utf-8') ?? '').split('\n');
  for (const [alias, target] of Object.entries(aliases)) {
    const entry = /^(\s*)"(@pgw\/[^"]+)":/;
    const at = lines.findIndex((line) => (entry.exec(line)?.[2] ?? '') > alias);
    const first = lines.findIndex((line) => entry.test(line));
    if (first === -1)
      throw new Error('tsconfig.base.json has no @pgw/ path alias to put the new ones beside.');
    const indent = entry.exec(lines[first])?.[1] ?? '      ';
    const line = `${indent}${JSON.stringify(alias)}: [${JSON.stringify(target)}],`;
    lines =
      at === -1
        ? insertLast(lines, first, line)
        : [...lines.slice(0, at), line, ...lines.slice(at)];
  }
  const text = lines.join('\n');
  JSON.parse(text); // still JSON: the generator refuses to leave a broken file behind
  tree.write('tsconfig.base.json', text);
}

/** After the last alias: that entry gains a comma, the new one takes none. */
function insertLast(lines: string[], first: number, line: string): string[] {
  const close = lines.findIndex((l, i) => i > first && /^\s*}/.test(l));
  const last = close - 1;
  return [
    ...lines.slice(0, last),
    lines[last].replace(/\s*$/, ','),
    line.replace(/,$/, ''),
    ...lines.slice(close),
  ];
}

/** The files of apps/<name>, by path below it. */
export function serviceFiles(name: string): Record<string, string> {
  const { propertyName } = names(name);
  const service = `${propertyName}Service`;
  const schema = name.replace(/-/g, '_');
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  return {
    'project.json': json({
      name,
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      projectType: 'application',
      sourceRoot: `apps/${name}/src`,
      tags: ['type:app', `scope:${name}`],
      targets: {
        test: {
          executor: 'nx:run-commands',
          options: { command: `npm test -- apps/${name}`, cwd: '{workspaceRoot}' },
        },
        lint: {
          executor: 'nx:run-commands',
          options: { command: `eslint apps/${name}`, cwd: '{workspaceRoot}' },
        },
      },
    }),
    'src/instrument.ts': `// The first import of main.ts: OpenTelemetry must patch http, fastify, pg and kafkajs before they load.
// main.ts hands the handle to runMain, which flushes what is buffered on every way out of the process.
import { startTelemetry } from '@pgw/platform-telemetry';

export const telemetry = startTelemetry({ serviceName: '${name}' });
`,
    'src/main.ts': `import { telemetry } from './instrument';
import { runMain, runServiceMain } from '@pgw/platform-service';
import { ${service} } from './service';

// Distributed mode: ${name} alone, on its own schema of PostgreSQL and on Kafka.
runMain('${name}', telemetry, () => runServiceMain(${service}, { schema: '${schema}' }));
`,
    'src/index.ts': `export { ${service} } from './service';
`,
    'src/service.ts': `import type { ServiceDefinition } from '@pgw/platform-service';
import { ${propertyName}Consumers } from './consumers/consumers';
import { ${propertyName}Migrations } from './migrations';
import { createNoteRoute } from './routes/create-note.route';

/** ${name}: what the service owns, in one sentence. startService migrates it, builds its routes and consumers. */
export const ${service}: ServiceDefinition = {
  name: '${name}',
  migrations: ${propertyName}Migrations,
  async build(app, { db, clock }) {
    createNoteRoute(app, { db, clock });
    return { consumers: ${propertyName}Consumers() };
  },
};
`,
    'src/migrations.ts': `import type { Migration } from '@pgw/platform-db';

// One statement per trx.raw call (the embedded database takes one at a time). A shipped migration never
// changes: add the next one.
export const ${propertyName}Migrations: Migration[] = [
  {
    name: '0001_${schema}',
    async up(trx) {
      await trx.raw(\`
        create table notes (
          id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          seller_id text not null,
          text text not null,
          created_at timestamptz not null
        )\`);
      await trx.raw('create index notes_scope on notes (tenant_id, livemode, seller_id, created_at desc)');
    },
  },
];
`,
    'src/consumers/consumers.ts': `import type { ConsumerDefinition } from '@pgw/platform-service';

/** The service's consumers (one <topic>.consumer.ts each, beside this file); startService applies them through the inbox. */
export function ${propertyName}Consumers(): ConsumerDefinition[] {
  return [];
}
`,
    'src/domain/project.json': json({
      name: `${name}-domain`,
      $schema: '../../../../node_modules/nx/schemas/project-schema.json',
      projectType: 'library',
      sourceRoot: `apps/${name}/src/domain`,
      tags: ['type:domain', `scope:${name}`],
    }),
    'src/domain/note.ts': `// The rules of a note: pure (no I/O, no framework; lint refuses them in domain/), imported by the rest of
// the service as @pgw/${name}-domain/note.
export const NOTE_TEXT_MAX = 280;

/** The text as stored: trimmed, each run of whitespace one space; null when nothing is left. */
export function normalizeNoteText(text: string): string | null {
  const normalized = text.trim().replace(/\\s+/g, ' ');
  return normalized === '' ? null : normalized;
}
`,
    'src/domain/note.spec.ts': `import { normalizeNoteText } from './note';

describe('normalizeNoteText', () => {
  it('trims the text and keeps one space for each run of whitespace', () => {
    expect(normalizeNoteText('  first \\t\\n second  ')).toBe('first second');
  });

  it('has nothing to keep from blank text', () => {
    expect(normalizeNoteText(' \\n ')).toBeNull();
  });
});
`,
    'src/data/notes.repository.ts': `import type { Knex } from 'knex';
import type { Tx } from '@pgw/platform-db';

export interface Note {
  id: string;
  tenantId: string;
  livemode: boolean;
  sellerId: string;
  text: string;
  createdAt: Date;
}

/** Every query names the tenant, the environment and the seller. */
export async function insertNote(trx: Tx, note: Note): Promise<void> {
  await trx('notes').insert({ id: note.id, tenant_id: note.tenantId, livemode: note.livemode, seller_id: note.sellerId, text: note.text, created_at: note.createdAt });
}

export async function countNotes(q: Knex | Tx, scope: { tenantId: string; livemode: boolean; sellerId: string }): Promise<number> {
  const [row] = await q('notes').where({ tenant_id: scope.tenantId, livemode: scope.livemode, seller_id: scope.sellerId }).count<{ count: string | number }[]>({ count: '*' });
  return Number(row.count);
}
`,
    'src/operations/create-note.ts': `import { randomUUID } from 'node:crypto';
import type { Db } from '@pgw/platform-db';
import { ApiError } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import { normalizeNoteText } from '@pgw/${name}-domain/note';
import { insertNote, type Note } from '../data/notes.repository';

/** The business operation behind POST /api/v1/${name}/notes: the route adapts HTTP to it and back. */
export async function createNote(deps: { db: Db; clock: Clock }, scope: { tenantId: string; livemode: boolean; sellerId: string }, input: { text: string }): Promise<Note> {
  const text = normalizeNoteText(input.text);
  if (text === null) throw new ApiError('parameter_invalid', 'The text must not be blank.', 'text');
  const note: Note = { id: \`note_\${randomUUID()}\`, ...scope, text, createdAt: deps.clock.now() };
  await deps.db.tx((trx) => insertNote(trx, note));
  return note;
}
`,
    'src/routes/create-note.route.ts': `import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '@pgw/platform-db';
import { RequestIdSchema, sellerPrincipal, type App } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import { NOTE_TEXT_MAX } from '@pgw/${name}-domain/note';
import { createNote } from '../operations/create-note';

export const CreateNoteBody = Type.Object({ text: Type.String({ minLength: 1, maxLength: NOTE_TEXT_MAX }) }, { additionalProperties: false });
export type CreateNoteBody = Static<typeof CreateNoteBody>;

export const NoteResource = Type.Object(
  {
    object: Type.Literal('note'),
    id: Type.String(),
    text: Type.String(),
    livemode: Type.Boolean(),
    created_at: Type.String(),
    request_id: RequestIdSchema,
  },
  { additionalProperties: false },
);

/** POST /api/v1/${name}/notes: request.body's type comes from CreateNoteBody through the app's TypeBox type provider. */
export function createNoteRoute(app: App, deps: { db: Db; clock: Clock }): void {
  app.post('/api/v1/${name}/notes', { schema: { body: CreateNoteBody, response: { 201: NoteResource } } }, async (request, reply) => {
    const principal = sellerPrincipal(request, '${name}:write');
    const note = await createNote(deps, { tenantId: principal.tenantId, livemode: principal.livemode, sellerId: principal.sellerId }, request.body);
    return reply.code(201).send({ object: 'note' as const, id: note.id, text: note.text, livemode: note.livemode, created_at: note.createdAt.toISOString(), request_id: request.id });
  });
}
`,
    'src/routes/create-note.route.spec.ts': `import { InProcessBus } from '@pgw/platform-bus';
import { createPgliteKnex, sharedDb } from '@pgw/platform-db';
import { PRINCIPAL_HEADER, TestPrincipals } from '@pgw/platform-http';
import { InjectPeers, ManualClock, startService, type RunningService } from '@pgw/platform-service';
import { uniqueName } from '@pgw/testing';
import { countNotes } from '../data/notes.repository';
import { ${service} } from '../service';

jest.setTimeout(60_000);
const PRINCIPALS = new TestPrincipals();
const knex = createPgliteKnex(null);
const db = sharedDb(knex, uniqueName('${schema}'));
const clock = new ManualClock(new Date('2026-03-02T12:00:00Z'));
let service: RunningService;

beforeAll(async () => {
  service = await startService(${service}, { db, bus: new InProcessBus(), clock, principalPublicKey: PRINCIPALS.publicKey, peers: new InjectPeers(), env: {}, log: { level: 'silent' } });
  PRINCIPALS.bind(service.app);
});
afterAll(async () => {
  await service.stop();
  await knex.destroy();
});

const scope = { tenantId: 'ten_1', livemode: false, sellerId: 'seller_1' };
const post = (payload: unknown, permissions = ['${name}:write']) =>
  service.app.inject({
    method: 'POST',
    url: '/api/v1/${name}/notes',
    payload: payload as object,
    headers: { [PRINCIPAL_HEADER]: PRINCIPALS.header({ kind: 'api_key', ...scope, keyId: 'key_x', permissions, requestId: 'req_x', expiresAtMs: Date.parse('2100-01-01') }) },
  });

describe('POST /api/v1/${name}/notes', () => {
  it('stores the note, its text normalized, in the seller\\'s scope', async () => {
    const before = await db.read((q) => countNotes(q, scope));
    const res = await post({ text: '  hello \\n world ' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ object: 'note', text: 'hello world', livemode: false, created_at: '2026-03-02T12:00:00.000Z' });
    expect(await db.read((q) => countNotes(q, scope))).toBe(before + 1);
  });

  it('refuses blank text, an unknown field and a key without the permission, storing nothing', async () => {
    const before = await db.read((q) => countNotes(q, scope));
    const blank = await post({ text: '   ' });
    expect([blank.statusCode, blank.json().error.code, blank.json().error.param]).toEqual([422, 'parameter_invalid', 'text']);
    const unknown = await post({ text: 'x', colour: 'red' });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([422, 'parameter_unknown']);
    const denied = await post({ text: 'x' }, ['${name}:read']);
    expect([denied.statusCode, denied.json().error.code]).toEqual([403, 'permission_denied']);
    expect(await db.read((q) => countNotes(q, scope))).toBe(before);
  });
});
`,
  };
}
