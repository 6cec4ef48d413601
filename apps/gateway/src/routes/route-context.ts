import {
  Type,
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
  type TString,
} from '@sinclair/typebox';
import type { Db } from '@pgw/platform-db';
import { RequestIdSchema } from '@pgw/platform-http';
import type { Clock } from '@pgw/platform-service';
import type { ApiKeyAuthenticator } from '../auth/api-key-auth';
import { LIMITS } from '@pgw/gateway-domain/defaults';

/** What the operator API's routes need. */
export interface RouteContext {
  db: Db;
  clock: Clock;
  authenticator: ApiKeyAuthenticator;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: endpoints may name private addresses (contract §7). */
  allowPrivateWebhookTargets: boolean;
}

/** A request body object: unknown fields are refused (422 parameter_unknown), never ignored. */
export const StrictObject = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

export const NameSchema = Type.String({
  minLength: 1,
  maxLength: LIMITS.nameLengthMax,
  pattern: '\\S',
});
export const BpsSchema = Type.Integer({ minimum: 0, maximum: LIMITS.bpsMax });
export const CentsSchema = Type.Integer({ minimum: 0, maximum: LIMITS.amountCentsMax });
export const DelayDaysSchema = Type.Integer({ minimum: 0, maximum: LIMITS.settlementDelayDaysMax });
export const EnvironmentSchema = Type.Union([Type.Literal('test'), Type.Literal('live')]);
/** The environment a key or an endpoint is in: its livemode, as the operator API spells it. */
export const environmentOf = (livemode: boolean): Static<typeof EnvironmentSchema> =>
  livemode ? 'live' : 'test';
export const DateTimeSchema = Type.String({ format: 'date-time' });

export const MdrBpsInputSchema = StrictObject({
  credit_card: Type.Optional(BpsSchema),
  debit_card: Type.Optional(BpsSchema),
  pix: Type.Optional(BpsSchema),
  boleto: Type.Optional(BpsSchema),
});

export const MdrBpsSchema = Type.Object({
  credit_card: BpsSchema,
  debit_card: BpsSchema,
  pix: BpsSchema,
  boleto: BpsSchema,
});

/** Path ids are checked by pattern in the handler, so a malformed id is a 404 like an unknown one (contract §2). */
export const PathId = (name: string) => Type.Object({ [name]: Type.String({ maxLength: 255 }) });

export const iso = (date: Date): string => date.toISOString();

/** The path of a tenant's resources, /tenants/:tenant_id/…; an id that is not a tenant's is a 404 in the handler. */
export const TenantIdParams = Type.Object({ tenant_id: Type.String() });

/** POST /tenants/:tenant_id/<things>: the tenant's id, the body, and the resource made (201). */
export const createInTenantSchema = <B extends TSchema, R extends TSchema>(
  body: B,
  resource: R,
) => ({
  schema: { params: TenantIdParams, body, response: { 201: resource } },
});

/** PATCH /<things>/:<name>: the resource's id (checked by pattern in the handler), the change, the resource after it. */
export const changeSchema = <N extends string, B extends TSchema, R extends TSchema>(
  name: N,
  body: B,
  resource: R,
) => ({
  schema: {
    params: Type.Object({ [name]: Type.String() } as Record<N, TString>),
    body,
    response: { 200: resource },
  },
});

/** A resource as its endpoint answers it: the item a list shows, with the request's id. */
export const withRequestId = <T extends object>(
  item: T,
  requestId: string,
): T & { request_id: string } => ({
  ...item,
  request_id: requestId,
});

/**
 * An operator resource: its kind (`object`) and id, then its own `fields`. `Item` is the resource in a list
 * (the page carries the request id), `Answer` the resource an endpoint answers, with the request's id;
 * `item` shapes a record as `Item`, given `shape`, which writes the record's own fields.
 */
export function operatorResource<O extends string, F extends TProperties, R extends { id: string }>(
  object: O,
  fields: F,
  shape: (record: R) => Static<TObject<F>>,
) {
  const Item = Type.Object({ object: Type.Literal(object), id: Type.String(), ...fields });
  const Answer = Type.Object({ ...Item.properties, request_id: RequestIdSchema });
  const item = (record: R) => ({ object, id: record.id, ...shape(record) });
  return { Item, Answer, item };
}
