import type { Migration } from '@pgw/platform-db';

// What the vault keeps. No column may ever hold a PAN or a CVV: the PAN is in the acquirer's card store
// (card_ref), and the vault has only its public facts (brand, last4, expiry), the holder's name and a
// keyed fingerprint. Everything else (billing address, metadata) is sealed (see domain/keyring.ts).
export const vaultMigrations: Migration[] = [
  {
    name: '0001_vault',
    async up(trx) {
      await trx.raw(`
        create table tokens (
          id text primary key,
          tenant_id text not null,
          seller_id text not null,
          livemode boolean not null,
          card_ref text not null,
          brand text not null,
          last4 text not null check (last4 ~ '^[0-9]{4}$'),
          exp_month int not null,
          exp_year int not null,
          holder_name text not null,
          fingerprint text not null,
          kek_id text not null,
          wrapped_key bytea not null,
          sealed bytea not null,
          created_at timestamptz not null
        )`);
      await trx.raw('create index tokens_scope on tokens (tenant_id, livemode, id)');
      await trx.raw('create index tokens_fingerprint on tokens (tenant_id, livemode, fingerprint)');
      await trx.raw('create index tokens_kek on tokens (kek_id)');
      // The local copy of the directory's sellers (gateway.seller-changed.v1), for the KYC gate; dropped
      // by 0002: KYC is the gateway's alone.
      await trx.raw(`
        create table sellers (
          seller_id text primary key,
          tenant_id text not null,
          kyc_status text not null,
          version bigint not null,
          updated_at timestamptz not null
        )`);
      // Only the all-in-one mode writes here (config.ts: vaultKeysForAllInOne).
      await trx.raw(
        'create table local_keys (name text primary key, key_id text, material bytea not null)',
      );
    },
  },
  {
    // The gateway decides KYC from its own sellers table at request time (contract §4b): an event-fed
    // copy here answered 403 after an approval the operator had already been told of.
    name: '0002_drop_seller_copy',
    async up(trx) {
      await trx.raw('drop table if exists sellers');
    },
  },
  {
    // The rail the card was stored on (`cielo:acme`, `simulator`), as charges records a charge's: a card
    // reference means something only to the card store that issued it, so charges sends a token's charges
    // there, whatever the tenant's card rail is now. null: stored before rails were recorded.
    name: '0003_tokens_card_rail',
    async up(trx) {
      await trx.raw('alter table tokens add column card_rail text');
    },
  },
];
