import { isDeepStrictEqual } from 'node:util';

// The resources as shared components. A route answers a resource with its request_id beside it, and a page
// of them without (data[] items, and webhooks' data.object): the component is the resource alone, left
// open, and each use closes it with `unevaluatedProperties: false` (JSON Schema 2020-12 sees through the
// $ref), so the document still says exactly what the route's schema allows. Routes that answer the same
// resource must agree on it to the byte: a difference throws rather than documenting one of them.

export type JsonSchema = Record<string, unknown>;

const ref = (name: string) => `#/components/schemas/${name}`;

export class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly from: Record<string, string> = {};
  private readonly closed = new Set<string>();

  /** The route's resource schema (no request_id) under `name`; the same name must mean the same schema. */
  private register(name: string, schema: JsonSchema, route: string): void {
    const { additionalProperties, ...open } = schema;
    // An open schema (the operator API's answers) is shared as it is, and used as it is.
    if (additionalProperties === false) this.closed.add(name);
    else if (additionalProperties !== undefined) open.additionalProperties = additionalProperties;
    const known = this.schemas[name];
    if (known !== undefined && !isDeepStrictEqual(known, open))
      throw new Error(`${route} answers a ${name} unlike ${this.from[name]}'s`);
    this.schemas[name] ??= open;
    this.from[name] ??= route;
  }

  /** The resource `name` where it is the whole value (a list item, a webhook's data.object). */
  resource(name: string): JsonSchema {
    return this.closed.has(name)
      ? { $ref: ref(name), unevaluatedProperties: false }
      : { $ref: ref(name) };
  }

  /** A route's success answer: the resource with request_id (or alone), or `<Resource>List`, a page of them. */
  answer(name: string, schema: JsonSchema, route: string): JsonSchema {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const requestId = properties.request_id;
    if (requestId === undefined) {
      // The operator API answers some resources without a request_id: the resource is the whole answer.
      this.register(name, schema, route);
      return this.resource(name);
    }
    if (name.endsWith('List')) {
      const item = name.slice(0, -'List'.length);
      const data = properties.data ?? {};
      this.register(item, (data.items ?? {}) as JsonSchema, route);
      const envelope = {
        ...schema,
        properties: { ...properties, data: { ...data, items: this.resource(item) } },
      };
      const known = this.schemas[name];
      if (known !== undefined && !isDeepStrictEqual(known, envelope))
        throw new Error(`${route} answers a ${name} unlike ${this.from[name]}'s`);
      this.schemas[name] = envelope;
      this.from[name] ??= route;
      return { $ref: ref(name) };
    }
    const { request_id: _answerOnly, ...resourceProperties } = properties;
    const required = ((schema.required ?? []) as string[]).filter((p) => p !== 'request_id');
    this.register(name, { ...schema, required, properties: resourceProperties }, route);
    return {
      allOf: [
        { $ref: ref(name) },
        { type: 'object', required: ['request_id'], properties: { request_id: requestId } },
      ],
      ...(this.closed.has(name) ? { unevaluatedProperties: false } : {}),
    };
  }
}
