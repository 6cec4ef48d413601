import { Type, type Static } from '@sinclair/typebox';

// Cielo API 3.0 (API E-commerce Cielo) as its public manual documents it: DeveloperCielo/developercielo.github.io,
// _i18n/en/_posts/api-ecommerce-cielo/2003-03-03-cielo-ecommerce.md (see fixtures/README.md for the commit).
// JSON is PascalCase, amounts are integer cents, dates are São Paulo local time without a zone.
//
// Requests are written from the manual's property tables (required fields, sizes, formats) and are strict:
// the contract tests' fake refuses a request that misses a required field or carries one the manual does
// not list, so a typo in the adapter cannot pass. Answers are read leniently (unknown fields dropped, codes
// as text or number), because Cielo adding a field is not a failure.

/** Headers every call carries. MerchantKey is a secret: it goes on the wire and nowhere else. */
export const CIELO_HEADERS = {
  merchantId: 'MerchantId',
  merchantKey: 'MerchantKey',
  requestId: 'RequestId',
} as const;

export const CIELO_PATHS = {
  /** Transactional host: the card store ("Cartão Protegido"), POST. */
  card: '/1/card/',
  /** Transactional host: a sale (authorization, with or without capture), POST. */
  sales: '/1/sales/',
  /** Transactional host: PUT, full capture when no `amount` is given. */
  capture: (paymentId: string) => `/1/sales/${encodeURIComponent(paymentId)}/capture`,
  /** Transactional host: PUT; without `amount` a total void, with it a partial one (captured sales only). */
  void: (paymentId: string) => `/1/sales/${encodeURIComponent(paymentId)}/void`,
  /** Query host: one sale by PaymentId, GET. */
  sale: (paymentId: string) => `/1/sales/${encodeURIComponent(paymentId)}`,
  /** Query host: the PaymentIds made under a MerchantOrderId, GET `?merchantOrderId=`. */
  salesByOrder: '/1/sales',
} as const;

/** The brands the manual lists for `CreditCard.Brand` and for the card store. */
export const CIELO_BRANDS = [
  'Visa',
  'Master',
  'Amex',
  'Elo',
  'Aura',
  'JCB',
  'Diners',
  'Discover',
  'Hipercard',
  'Hiper',
] as const;
export type CieloBrand = (typeof CIELO_BRANDS)[number];

const Guid = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
});
const Brand = Type.Union(CIELO_BRANDS.map((b) => Type.Literal(b)));
/** "Number, size 15", in cents; the manual forbids a zero amount for a sale. */
const Amount = Type.Integer({ minimum: 1, maximum: 999_999_999_999_999 });
const strict = { additionalProperties: false } as const;

/** The manual's MerchantOrderId: letters and digits only. 36 is the size its query by order id accepts (50 on creation). */
export const MERCHANT_ORDER_ID_PATTERN = '^[A-Za-z0-9]{1,36}$';

// ── Requests ─────────────────────────────────────────────────────────────────────────────────────

/** POST /1/card/ ("Creating a tokenized card before authorization"): every field is required. */
export const CieloCardRequest = Type.Object(
  {
    CustomerName: Type.String({ minLength: 1, maxLength: 255 }),
    CardNumber: Type.String({ pattern: '^[0-9]{12,19}$' }),
    /** "Does not accept special characters", 25 at most. */
    Holder: Type.String({ pattern: '^[A-Za-z0-9 ]{1,25}$' }),
    ExpirationDate: Type.String({ pattern: '^(0[1-9]|1[0-2])/[0-9]{4}$' }),
    Brand,
  },
  strict,
);
export type CieloCardRequestBody = Static<typeof CieloCardRequest>;

/** POST /1/sales/ with a CardToken ("Creating a sale with Tokenized Card"): the credit sale's table, token variant. */
export const CieloSaleRequest = Type.Object(
  {
    MerchantOrderId: Type.String({ pattern: MERCHANT_ORDER_ID_PATTERN }),
    Customer: Type.Optional(
      Type.Object({ Name: Type.String({ minLength: 1, maxLength: 255 }) }, strict),
    ),
    Payment: Type.Object(
      {
        Type: Type.Literal('CreditCard'),
        Amount,
        Currency: Type.Optional(Type.Literal('BRL')),
        Country: Type.Optional(Type.Literal('BRA')),
        /** "Number, size 2"; 1 for a single payment. */
        Installments: Type.Integer({ minimum: 1, maximum: 99 }),
        Interest: Type.Optional(Type.Union([Type.Literal('ByMerchant'), Type.Literal('ByIssuer')])),
        Capture: Type.Optional(Type.Boolean()),
        SoftDescriptor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9]{1,13}$' })),
        CreditCard: Type.Object(
          {
            CardToken: Guid,
            SecurityCode: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$' })),
            Brand,
          },
          strict,
        ),
      },
      strict,
    ),
  },
  strict,
);
export type CieloSaleRequestBody = Static<typeof CieloSaleRequest>;

/** PUT capture / void: no body; `amount` in the query string, digits (cents) when present. */
export const CieloAmountQuery = Type.Object(
  { amount: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,14}$' })) },
  strict,
);

// ── Answers ──────────────────────────────────────────────────────────────────────────────────────

/** Codes are "text" in the manual, yet its own examples print some as numbers: read both. */
const Code = Type.Union([Type.String(), Type.Integer()]);
const Text = Type.String();

export const CieloCardAnswer = Type.Object({ CardToken: Guid });
export type CieloCardAnswerBody = Static<typeof CieloCardAnswer>;

export const CieloSaleAnswer = Type.Object({
  MerchantOrderId: Text,
  Payment: Type.Object({
    PaymentId: Guid,
    Type: Type.Optional(Text),
    Status: Type.Integer(),
    Amount: Type.Integer({ minimum: 0 }),
    Installments: Type.Integer({ minimum: 1 }),
    Capture: Type.Optional(Type.Boolean()),
    CapturedAmount: Type.Optional(Type.Integer({ minimum: 0 })),
    VoidedAmount: Type.Optional(Type.Integer({ minimum: 0 })),
    ReceivedDate: Type.Optional(Text),
    CapturedDate: Type.Optional(Text),
    VoidedDate: Type.Optional(Text),
    AuthorizationCode: Type.Optional(Text),
    ReturnCode: Type.Optional(Code),
    ReturnMessage: Type.Optional(Text),
    Tid: Type.Optional(Text),
    CreditCard: Type.Optional(
      Type.Object({ CardToken: Type.Optional(Text), Brand: Type.Optional(Text) }),
    ),
  }),
});
export type CieloSaleAnswerBody = Static<typeof CieloSaleAnswer>;

/** GET /1/sales?merchantOrderId=: the manual spells the date `ReceveidDate`; both spellings are read. */
export const CieloOrderAnswer = Type.Object({
  Payment: Type.Array(
    Type.Object({
      PaymentId: Guid,
      ReceveidDate: Type.Optional(Text),
      ReceivedDate: Type.Optional(Text),
    }),
    { maxItems: 1000 },
  ),
});
export type CieloOrderAnswerBody = Static<typeof CieloOrderAnswer>;

/** The answer of PUT capture and PUT void (total and partial). */
export const CieloUpdateAnswer = Type.Object({
  Status: Type.Integer(),
  ReturnCode: Type.Optional(Code),
  ReturnMessage: Type.Optional(Text),
  AuthorizationCode: Type.Optional(Text),
  ReasonCode: Type.Optional(Code),
  ReasonMessage: Type.Optional(Text),
  ProviderReturnCode: Type.Optional(Code),
  ProviderReturnMessage: Type.Optional(Text),
});
export type CieloUpdateAnswerBody = Static<typeof CieloUpdateAnswer>;

/** A 400's body ("Integration errors"): a list of `{ Code, Message }`. */
export const CieloErrorAnswer = Type.Array(
  Type.Object({ Code: Code, Message: Type.Optional(Text) }),
  { minItems: 1, maxItems: 100 },
);
export type CieloErrorAnswerBody = Static<typeof CieloErrorAnswer>;
