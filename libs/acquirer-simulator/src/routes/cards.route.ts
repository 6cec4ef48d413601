import type { FastifyInstance } from 'fastify';
import { SIM_PATHS, StoreCardRequest, WireCard, type WireCardBody } from '@pgw/acquirer';
import type { Clock } from '@pgw/platform-service';
import type { CardRow, SimStore } from '../data/sim-store';
import type { Refusals } from '../http';
import { createRoute } from './sim-routes';
import { storeCard } from '../operations/cards';

const toWire = (row: CardRow): WireCardBody => ({
  reference: row.reference,
  card_ref: row.card_ref,
  brand: row.brand,
  last4: row.last4,
});

const REFUSALS: Refusals<'card_number_invalid' | 'reference_reused'> = {
  card_number_invalid: { message: 'The card number fails the Luhn check.', param: 'number' },
  reference_reused: { message: 'This reference was used for another card.', param: 'reference' },
};

/** POST /acquirer/v1/cards: the acquirer's card store (operations/cards.ts). */
export function cardsRoute(app: FastifyInstance, store: SimStore, clock: Clock): void {
  createRoute(
    app,
    { wire: WireCard, toWire },
    {
      path: SIM_PATHS.cards,
      body: StoreCardRequest,
      create: (body) => storeCard(store, clock, body),
      refusals: REFUSALS,
    },
  );
}
