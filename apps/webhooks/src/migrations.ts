import type { Migration } from '@pgw/platform-db';

// What the webhooks service keeps: its copy of the directory's endpoints (with the rotation state it
// owns), each event's body once, a delivery per event and endpoint, and every attempt. The delivery
// rows are the worker's whole state: a restart or another replica picks them up where they were.
export const webhooksMigrations: Migration[] = [
  {
    name: '0001_webhooks',
    async up(trx) {
      // From gateway.webhook-endpoint-changed.v1 (highest version kept). `secret` signs; it is the
      // directory's until this service rotates it. `directory_secret` is the last one the directory
      // announced, to tell a new directory secret from a repeat of the old one.
      await trx.raw(`
        create table webhook_endpoints (
          id text primary key,
          tenant_id text not null,
          url text not null,
          events jsonb not null,
          livemode boolean not null,
          version bigint not null,
          secret text not null,
          directory_secret text not null,
          previous_secret text,
          previous_secret_expires_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null
        )`);
      await trx.raw(
        'create index webhook_endpoints_scope on webhook_endpoints (tenant_id, livemode)',
      );
      // The body of contract §7 exactly as sent and signed.
      await trx.raw(`
        create table webhook_events (
          event_id text primary key,
          tenant_id text not null,
          livemode boolean not null,
          type text not null,
          source_type text not null,
          resource_key text not null,
          body text not null,
          created_at timestamptz not null
        )`);
      // seq orders the deliveries of one endpoint and resource: a delivery waits while an earlier one is pending.
      await trx.raw(`
        create table webhook_deliveries (
          id text primary key,
          seq bigserial not null unique,
          endpoint_id text not null,
          tenant_id text not null,
          livemode boolean not null,
          event_id text not null,
          event_type text not null,
          resource_key text not null,
          status text not null check (status in ('pending', 'succeeded', 'failed')),
          attempt_count integer not null default 0,
          round_attempts integer not null default 0,
          next_attempt_at timestamptz,
          give_up_at timestamptz not null,
          lease_until timestamptz,
          last_status_code integer,
          last_error text,
          delivered_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null,
          unique (endpoint_id, event_id)
        )`);
      await trx.raw(
        `create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`,
      );
      await trx.raw(
        `create index webhook_deliveries_order on webhook_deliveries (endpoint_id, resource_key, seq) where status = 'pending'`,
      );
      await trx.raw(
        'create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, seq)',
      );
      await trx.raw(`
        create table webhook_attempts (
          delivery_id text not null,
          number integer not null,
          started_at timestamptz not null,
          latency_ms integer not null,
          status_code integer,
          response_excerpt text,
          error text,
          succeeded boolean not null,
          primary key (delivery_id, number)
        )`);
    },
  },
];
