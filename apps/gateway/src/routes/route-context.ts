import { Type, type TProperties } from '@sinclair/typebox';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import type { ApiKeyAuthenticator } from '../auth/api-key-auth';
import { LIMITS } from '../directory/defaults';

/** What the operator API's routes need. */
export interface RouteContext {
  db: Db;
  clock: Clock;
  authenticator: ApiKeyAuthenticator;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=1: endpoints may name private addresses (contract §7). */
  allowPrivateWebhookTargets: boolean;
}

/** A request body object: unknown fields are refused (422 parameter_unknown), never ignored. */
export const StrictObject = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const NameSchema = Type.String({ minLength: 1, maxLength: LIMITS.nameLengthMax, pattern: '\\S' });
export const BpsSchema = Type.Integer({ minimum: 0, maximum: LIMITS.bpsMax });
export const CentsSchema = Type.Integer({ minimum: 0, maximum: LIMITS.amountCentsMax });
export const DelayDaysSchema = Type.Integer({ minimum: 0, maximum: LIMITS.settlementDelayDaysMax });
export const EnvironmentSchema = Type.Union([Type.Literal('test'), Type.Literal('live')]);
export const DateTimeSchema = Type.String({ format: 'date-time' });

export const MdrBpsInputSchema = StrictObject({
  credit_card: Type.Optional(BpsSchema),
  debit_card: Type.Optional(BpsSchema),
  pix: Type.Optional(BpsSchema),
  boleto: Type.Optional(BpsSchema),
});

export const MdrBpsSchema = Type.Object({ credit_card: BpsSchema, debit_card: BpsSchema, pix: BpsSchema, boleto: BpsSchema });

/** Path ids are checked by pattern in the handler, so a malformed id is a 404 like an unknown one (contract §2). */
export const PathId = (name: string) => Type.Object({ [name]: Type.String({ maxLength: 255 }) });

export const iso = (date: Date): string => date.toISOString();
