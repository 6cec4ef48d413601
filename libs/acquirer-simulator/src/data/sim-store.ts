import type {
  ProviderMode,
  WireAuthorizationBody,
  WireBoletoBody,
  WirePixChargeBody,
  WireRefundBody,
} from '@pgw/acquirer';
import type { CardProfile } from '@pgw/acquirer-simulator-domain/test-cards';

// What the simulator keeps, and the one seam between its rules (operations/) and where they are kept: the
// simulator app keeps them in PostgreSQL (pg-sim-store.ts, its schema in migrations.ts), specs of other
// services in memory (testing/memory-sim-store.ts). Amounts may come back as strings (PostgreSQL bigint)
// and instants as strings (PGlite): readers go through Number() and iso().

export interface CardRow {
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

export interface AuthorizationRow {
  transaction_id: string;
  reference: string;
  card_ref: string;
  amount_cents: string | number;
  installments: number;
  capture_requested: boolean;
  status: WireAuthorizationBody['status'];
  captured_amount_cents: string | number;
  refunded_amount_cents: string | number;
  authorization_code: string | null;
  return_code: string | null;
  return_message: string | null;
  refused_reason: WireAuthorizationBody['refused_reason'];
  created_at: Date | string;
  captured_at: Date | string | null;
  canceled_at: Date | string | null;
}

export interface RefundRow {
  refund_id: string;
  reference: string;
  transaction_id: string;
  amount_cents: string | number;
  status: WireRefundBody['status'];
  failure_reason: string | null;
  created_at: Date | string;
}

export interface PixRow {
  txid: string;
  reference: string;
  amount_cents: string | number;
  expires_in: number;
  qr_code: string;
  status: WirePixChargeBody['status'];
  expires_at: Date | string;
  paid_at: Date | string | null;
  created_at: Date | string;
}

export interface BoletoRow {
  reference: string;
  amount_cents: string | number;
  due_date: string;
  barcode: string;
  digitable_line: string;
  status: WireBoletoBody['status'];
  paid_at: Date | string | null;
  created_at: Date | string;
}

/**
 * One unit of work's reads and writes. Within `SimStore.tx`, a `lock…` read holds the row until the unit
 * ends (SELECT … FOR UPDATE; the memory store runs one unit at a time). An `insert…` keeps the first row
 * of a reference: it answers the inserted row, or undefined when the reference was already there.
 */
export interface SimRepository {
  insertCard(row: CardRow & { created_at: Date }): Promise<CardRow | undefined>;
  cardByReference(reference: string): Promise<CardRow | undefined>;
  cardProfile(cardRef: string): Promise<CardProfile | undefined>;

  authorizationByReference(reference: string): Promise<AuthorizationRow | undefined>;
  lockAuthorization(transactionId: string): Promise<AuthorizationRow | undefined>;
  updateAuthorization(
    transactionId: string,
    patch: Partial<AuthorizationRow>,
  ): Promise<AuthorizationRow>;

  refundByReference(reference: string): Promise<RefundRow | undefined>;
  insertRefund(row: RefundRow): Promise<RefundRow | undefined>;

  lockPix(reference: string): Promise<PixRow | undefined>;
  insertPix(row: PixRow): Promise<PixRow | undefined>;
  updatePix(reference: string, patch: Partial<PixRow>): Promise<PixRow>;

  boletoByReference(reference: string): Promise<BoletoRow | undefined>;
  lockBoleto(reference: string): Promise<BoletoRow | undefined>;
  /** The bank's next "nosso número" (a sequence: never the same twice, gaps allowed). */
  nextNossoNumero(): Promise<number>;
  insertBoleto(row: BoletoRow): Promise<BoletoRow | undefined>;
  updateBoleto(reference: string, patch: Partial<BoletoRow>): Promise<BoletoRow>;
}

export interface SimStore {
  /** Runs `fn` as one unit of work (a transaction). */
  tx<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T>;
  /** A read outside any unit of work (no locks). */
  read<T>(fn: (repo: SimRepository) => Promise<T>): Promise<T>;
  /**
   * Inserts the authorization unless its reference is taken (a concurrent twin may win): the row, or
   * undefined. A statement of its own, committed alone; concurrent inserts may share one.
   */
  insertAuthorization(row: AuthorizationRow): Promise<AuthorizationRow | undefined>;
  /** A card's test profile: it never changes, so it may be kept. */
  cardProfile(cardRef: string): Promise<CardProfile | undefined>;
  readMode(): Promise<ProviderMode>;
  writeMode(mode: ProviderMode): Promise<void>;
  /** The key of the cards' fingerprints: made once, never changed. */
  fingerprintKey(): Promise<Buffer>;
}
