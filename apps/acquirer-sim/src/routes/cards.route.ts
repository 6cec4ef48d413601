import type { FastifyInstance } from 'fastify';
import { SIM_PATHS, StoreCardRequest, WireCard, type StoreCardRequestBody, type WireCardBody } from '@pgw/acquirer';
import { detectBrand, fingerprint, luhnValid } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, reject, simId } from '../http';
import { profileOf, type CardProfile } from '../test-cards';

interface CardRow {
  card_ref: string;
  reference: string;
  /** Keyed HMAC of the number (sim_keys): recognises a reference reused for another card without the PAN. */
  fingerprint: string;
  profile: CardProfile;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  holder_name: string;
}

const toWire = (row: CardRow): WireCardBody => ({ reference: row.reference, card_ref: row.card_ref, brand: row.brand, last4: row.last4 });

/**
 * The acquirer's card store: takes a PAN once and answers with the reference that stands for it. The number
 * lives only in this request: what is kept is its fingerprint, last4, brand, expiry and test-card profile.
 */
export function cardsRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  // Read once: the key is made by the migration and never changes.
  let fingerprintKey: Promise<Buffer> | undefined;
  const keyOf = (): Promise<Buffer> =>
    (fingerprintKey ??= db.read(async (q) => {
      const row = await q('sim_keys').where({ id: 1 }).first<{ fingerprint_key: string }>('fingerprint_key');
      return Buffer.from(row.fingerprint_key, 'base64');
    }).catch((err: unknown) => {
      fingerprintKey = undefined; // a failed read (database restarting) is tried again by the next request
      throw err;
    }));
  app.post<{ Body: StoreCardRequestBody }>(
    SIM_PATHS.cards,
    { schema: { body: StoreCardRequest, response: { 200: WireCard, 201: WireCard } } },
    async (request, reply) => {
      const body = request.body;
      if (!luhnValid(body.number)) return reject(reply, 'card_number_invalid', 'The card number fails the Luhn check.', 'number');
      const row: CardRow = {
        card_ref: simId('card_'),
        reference: body.reference,
        fingerprint: fingerprint(body.number, await keyOf()),
        profile: profileOf(body.number),
        brand: detectBrand(body.number),
        last4: body.number.slice(-4),
        exp_month: body.exp_month,
        exp_year: body.exp_year,
        holder_name: body.holder_name,
      };
      const result = await db.tx(async (trx) => {
        const inserted = await trx('cards')
          .insert({ ...row, created_at: clock.now() })
          .onConflict('reference')
          .ignore()
          .returning<CardRow[]>('*');
        if (inserted[0] !== undefined) return { row: inserted[0], isNew: true };
        const existing = await trx('cards').where({ reference: body.reference }).first<CardRow>();
        return { row: existing, isNew: false };
      });
      const same =
        result.row.fingerprint === row.fingerprint && result.row.exp_month === row.exp_month && result.row.exp_year === row.exp_year && result.row.holder_name === row.holder_name;
      if (!same) return reject(reply, 'reference_reused', 'This reference was used for another card.', 'reference');
      return created(reply, result.isNew).send(toWire(result.row));
    },
  );
}
