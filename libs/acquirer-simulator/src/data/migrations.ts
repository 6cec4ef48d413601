import { randomBytes } from 'node:crypto';
import { fingerprint, normalizePan } from '@pgw/domain';
import type { Migration } from '@pgw/platform-db';
import { profileOf } from '@pgw/acquirer-simulator-domain/test-cards';

// The simulator's own schema. It stands for the outside world in test mode, and keeps no PAN (contract §6):
// of a card only a keyed fingerprint, last4, brand, expiry, holder and its test-card profile (0002). It never
// stores a CVV.
// Every table has a unique `reference`: the caller's idempotency reference.
export const simMigrations: Migration[] = [
  {
    name: '0001_acquirer_sim',
    async up(trx) {
      await trx.raw(`
        create table cards (
          card_ref text primary key,
          reference text not null unique,
          pan text not null,
          brand text not null,
          last4 text not null,
          exp_month int not null,
          exp_year int not null,
          holder_name text not null,
          created_at timestamptz not null
        )`);
      await trx.raw(`
        create table authorizations (
          transaction_id text primary key,
          reference text not null unique,
          card_ref text not null references cards (card_ref),
          amount_cents bigint not null,
          installments int not null,
          capture_requested boolean not null,
          status text not null,
          captured_amount_cents bigint not null default 0,
          refunded_amount_cents bigint not null default 0,
          authorization_code text,
          return_code text,
          return_message text,
          refused_reason text,
          created_at timestamptz not null,
          captured_at timestamptz,
          canceled_at timestamptz
        )`);
      await trx.raw(`
        create table refunds (
          refund_id text primary key,
          reference text not null unique,
          transaction_id text not null references authorizations (transaction_id),
          amount_cents bigint not null,
          status text not null,
          failure_reason text,
          created_at timestamptz not null
        )`);
      await trx.raw(`
        create table pix_charges (
          txid text primary key,
          reference text not null unique,
          amount_cents bigint not null,
          expires_in int not null,
          qr_code text not null,
          status text not null,
          expires_at timestamptz not null,
          paid_at timestamptz,
          created_at timestamptz not null
        )`);
      await trx.raw('create sequence boleto_nosso_numero');
      await trx.raw(`
        create table boletos (
          reference text primary key,
          amount_cents bigint not null,
          due_date text not null,
          barcode text not null unique,
          digitable_line text not null,
          status text not null,
          paid_at timestamptz,
          created_at timestamptz not null
        )`);
      await trx.raw(
        `create table provider_mode (id int primary key check (id = 1), mode text not null, updated_at timestamptz not null default now())`,
      );
      await trx.raw(`insert into provider_mode (id, mode) values (1, 'normal')`);
    },
  },
  {
    // Contract §6: the simulator keeps no PAN. The test-card outcome is decided when the card is stored and
    // kept as its profile; the reference-reuse check compares a fingerprint keyed by a key of the simulator's
    // own (made here, once). Stored numbers are turned into both, then the column goes.
    name: '0002_cards_without_pan',
    async up(trx) {
      await trx.raw(
        'create table sim_keys (id int primary key check (id = 1), fingerprint_key text not null)',
      );
      const key = randomBytes(32);
      await trx('sim_keys').insert({ id: 1, fingerprint_key: key.toString('base64') });
      await trx.raw('alter table cards add column fingerprint text');
      await trx.raw('alter table cards add column profile text');
      const rows = await trx('cards').select<{ card_ref: string; pan: string }[]>(
        'card_ref',
        'pan',
      );
      for (const row of rows) {
        const digits = normalizePan(row.pan) ?? row.pan;
        await trx('cards')
          .where({ card_ref: row.card_ref })
          .update({ fingerprint: fingerprint(digits, key), profile: profileOf(digits) });
      }
      await trx.raw('alter table cards drop column pan');
      await trx.raw('alter table cards alter column fingerprint set not null');
      await trx.raw('alter table cards alter column profile set not null');
    },
  },
];
