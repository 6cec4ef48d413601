import type { FastifyInstance } from 'fastify';
import { SIM_PATHS, StoreCardRequest, WireCard, type StoreCardRequestBody, type WireCardBody } from '@pgw/acquirer';
import { detectBrand, luhnValid } from '@pgw/domain';
import type { Db } from '@pgw/platform-db';
import type { Clock } from '@pgw/platform-service';
import { created, reject, simId } from '../http';

interface CardRow {
  card_ref: string;
  reference: string;
  pan: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  holder_name: string;
}

const toWire = (row: CardRow): WireCardBody => ({ reference: row.reference, card_ref: row.card_ref, brand: row.brand, last4: row.last4 });

/** The acquirer's card store: takes a PAN once and answers with the reference that stands for it. */
export function cardsRoute(app: FastifyInstance, db: Db, clock: Clock): void {
  app.post<{ Body: StoreCardRequestBody }>(
    SIM_PATHS.cards,
    { schema: { body: StoreCardRequest, response: { 200: WireCard, 201: WireCard } } },
    async (request, reply) => {
      const body = request.body;
      if (!luhnValid(body.number)) return reject(reply, 'card_number_invalid', 'The card number fails the Luhn check.', 'number');
      const row: CardRow = {
        card_ref: simId('card_'),
        reference: body.reference,
        pan: body.number,
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
        result.row.pan === row.pan && result.row.exp_month === row.exp_month && result.row.exp_year === row.exp_year && result.row.holder_name === row.holder_name;
      if (!same) return reject(reply, 'reference_reused', 'This reference was used for another card.', 'reference');
      return created(reply, result.isNew).send(toWire(result.row));
    },
  );
}
