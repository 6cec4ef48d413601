// The registry that tools/registry/start runs, spoken to only through its Confluent-compatible REST API
// (/apis/ccompat/v7) with plain fetch, as @kafkajs/confluent-schema-registry and any other language's
// Confluent client speak to it: an Avro schema registered under a TopicRecordNameStrategy subject reads back
// by id, registering it again gives the same id, a subject set to FULL_TRANSITIVE refuses (409) a version
// that an old or a new reader could not read, and the config handshake that @kafkajs/confluent-schema-registry
// runs before registering gets the answers it expects.
//
// Needs SCHEMA_REGISTRY_URL (e.g. http://127.0.0.1:8081/apis/ccompat/v7 after `tools/registry/start`; CI
// starts it), and fails without it, as every integration suite does without its servers.
import { schemaRegistryUrl, uniqueName } from '@pgw/testing';

const REGISTRY_URL = schemaRegistryUrl();
const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const REQUEST_TIMEOUT_MS = 10_000;

interface Answer {
  status: number;
  body: unknown;
}

async function call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${REGISTRY_URL}${path}`, {
    method,
    headers: {
      accept: CONTENT_TYPE,
      ...(body === undefined ? {} : { 'content-type': CONTENT_TYPE }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
}

interface Field {
  name: string;
  type: unknown;
  default?: unknown;
}

function chargePaid(namespace: string, fields: Field[]): { schema: string } {
  return { schema: JSON.stringify({ type: 'record', name: 'ChargePaid', namespace, fields }) };
}

function idOf(answer: Answer): number {
  expect(answer.status).toBe(200);
  const { id } = answer.body as { id: unknown };
  expect(typeof id).toBe('number');
  return id as number;
}

describe('the schema registry (Confluent-compatible API)', () => {
  // One topic and namespace per run: subjects of one run never meet another's on a long-lived registry.
  const topic = uniqueName('registry_it');
  const namespace = `gateway.${topic}.v1`;
  const subject = `${topic}-${namespace}.ChargePaid`; // TopicRecordNameStrategy: <topic>-<record full name>
  const v1 = chargePaid(namespace, [
    { name: 'charge_id', type: 'string' },
    { name: 'amount_cents', type: 'long' },
  ]);

  it('registers an Avro schema under a subject and reads the same schema back by its id', async () => {
    // Proves a producer's registration gives an id that a consumer in any language resolves to the writer's schema.
    const id = idOf(await call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, v1));

    const byId = await call('GET', `/schemas/ids/${id}`);
    expect(byId.status).toBe(200);
    const { schema, schemaType } = byId.body as { schema: string; schemaType?: string };
    expect(JSON.parse(schema)).toEqual(JSON.parse(v1.schema));
    expect(schemaType ?? 'AVRO').toBe('AVRO'); // Confluent leaves schemaType out for Avro

    const again = idOf(await call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, v1));
    expect(again).toBe(id); // a producer restarting registers again: same id, no new version
    const versions = await call('GET', `/subjects/${encodeURIComponent(subject)}/versions`);
    expect(versions).toEqual({ status: 200, body: [1] });
    const subjects = await call('GET', '/subjects');
    expect(subjects.body).toEqual(expect.arrayContaining([subject]));
  });

  it('refuses with 409 a version that breaks FULL_TRANSITIVE compatibility, and accepts one that keeps it', async () => {
    // Proves the rule set on the subject is enforced against every earlier version, not only the latest.
    const other = `${topic}-${namespace}.Evolving`;
    const path = `/subjects/${encodeURIComponent(other)}/versions`;
    const record = (fields: Field[]) => ({
      schema: JSON.stringify({ type: 'record', name: 'Evolving', namespace, fields }),
    });
    const id1 = idOf(
      await call(
        'POST',
        path,
        record([
          { name: 'charge_id', type: 'string' },
          { name: 'installments', type: 'int', default: 1 },
        ]),
      ),
    );

    const set = await call('PUT', `/config/${encodeURIComponent(other)}`, {
      compatibility: 'FULL_TRANSITIVE',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ compatibility: 'FULL_TRANSITIVE' });
    const read = await call('GET', `/config/${encodeURIComponent(other)}`);
    expect(read).toEqual({ status: 200, body: { compatibilityLevel: 'FULL_TRANSITIVE' } });

    // A new field without a default: a new reader cannot read v1's events.
    const noDefault = await call(
      'POST',
      path,
      record([
        { name: 'charge_id', type: 'string' },
        { name: 'installments', type: 'int', default: 1 },
        { name: 'brand', type: 'string' },
      ]),
    );
    expect(noDefault.status).toBe(409);
    expect(noDefault.body).toMatchObject({ error_code: 409 });

    // Dropping a field that has a default keeps both directions with v1: accepted as v2.
    const id2 = idOf(await call('POST', path, record([{ name: 'charge_id', type: 'string' }])));
    expect(id2).not.toBe(id1);

    // Compatible with v2 (which has no `installments`) but not with v1 (int → string): only a transitive
    // check sees it.
    const onlyTransitiveBreak = await call(
      'POST',
      path,
      record([
        { name: 'charge_id', type: 'string' },
        { name: 'installments', type: 'string', default: 'one' },
      ]),
    );
    expect(onlyTransitiveBreak.status).toBe(409);
    expect(onlyTransitiveBreak.body).toMatchObject({ error_code: 409 });

    const versions = await call('GET', path);
    expect(versions).toEqual({ status: 200, body: [1, 2] });
  });

  it('answers the handshake of a client that sets the compatibility before the first version of a subject', async () => {
    // Proves @kafkajs/confluent-schema-registry's register() can run on a new subject: it reads the subject's
    // config, takes only a 404 as "not set", writes its level, then registers; the level holds from v1 on.
    const fresh = `${topic}_fresh-${namespace}.ChargePaid`; // a second topic carrying the same record
    const unset = await call('GET', `/config/${encodeURIComponent(fresh)}`);
    expect(unset.status).toBe(404);

    const set = await call('PUT', `/config/${encodeURIComponent(fresh)}`, {
      compatibility: 'FULL_TRANSITIVE',
    });
    expect(set.status).toBe(200);
    const id = idOf(
      await call('POST', `/subjects/${encodeURIComponent(fresh)}/versions`, {
        schemaType: 'AVRO',
        ...chargePaid(namespace, [{ name: 'charge_id', type: 'string' }]),
      }),
    );
    expect(id).toBeGreaterThan(0);
    expect(await call('GET', `/config/${encodeURIComponent(fresh)}`)).toEqual({
      status: 200,
      body: { compatibilityLevel: 'FULL_TRANSITIVE' },
    });
  });

  it('answers an unknown schema id with 404 and the Confluent error code, not a server error', async () => {
    // Proves a consumer that meets a foreign id gets a clear "not found" it can park the message on.
    const missing = await call('GET', '/schemas/ids/2147483647');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error_code: 40403 });
  });
});
