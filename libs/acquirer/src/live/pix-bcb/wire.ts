import { Type, type Static } from '@sinclair/typebox';

// The parts of the API Pix answers (spec/openapi.yaml, release 2.9.0) that the adapter reads, as TypeBox
// schemas it checks every answer against. Only what we use is required, and unknown fields are allowed:
// a PSP that adds a field has not failed, but one that omits the amount or the status has answered
// something we cannot act on. `location` is not held to `format: uri` because the standard's own
// examples (and PSPs) send it without a scheme (`pix.example.com/qr/…`), and `loc.location` stands in
// for it when it is missing, as in the standard's due-date example (cobResponse4).

/** Reais with two decimals, as every API Pix amount: `123.45`. */
export const AMOUNT_PATTERN = '^\\d{1,10}\\.\\d{2}$';
const Amount = Type.String({ pattern: AMOUNT_PATTERN });
const Instant = Type.String({ minLength: 1 });
const EndToEndId = Type.String({ pattern: '^[a-zA-Z0-9]{32}$' });

export const CobStatus = Type.Union([
  Type.Literal('ATIVA'),
  Type.Literal('CONCLUIDA'),
  Type.Literal('REMOVIDA_PELO_USUARIO_RECEBEDOR'),
  Type.Literal('REMOVIDA_PELO_PSP'),
]);
export type CobStatusValue = Static<typeof CobStatus>;

export const WireDevolucao = Type.Object({
  id: Type.String({ pattern: '^[a-zA-Z0-9]{1,35}$' }),
  rtrId: Type.String({ minLength: 1 }),
  valor: Amount,
  horario: Type.Object({ solicitacao: Type.Optional(Instant), liquidacao: Type.Optional(Instant) }),
  status: Type.Union([
    Type.Literal('EM_PROCESSAMENTO'),
    Type.Literal('DEVOLVIDO'),
    Type.Literal('NAO_REALIZADO'),
  ]),
  motivo: Type.Optional(Type.String()),
});
export type WireDevolucaoBody = Static<typeof WireDevolucao>;

export const WirePix = Type.Object({
  endToEndId: EndToEndId,
  txid: Type.Optional(Type.String()),
  valor: Amount,
  horario: Instant,
  devolucoes: Type.Optional(Type.Array(WireDevolucao)),
});
export type WirePixBody = Static<typeof WirePix>;

const CobTxid = Type.String({ pattern: '^[a-zA-Z0-9]{26,35}$' });

/** The fields an immediate charge (cob) and a charge with a due date (cobv) share after `calendario`. */
const COB_AFTER_CALENDAR = {
  valor: Type.Object({ original: Amount }),
  chave: Type.String(),
  location: Type.Optional(Type.String({ minLength: 1 })),
  loc: Type.Optional(Type.Object({ location: Type.Optional(Type.String({ minLength: 1 })) })),
  pixCopiaECola: Type.Optional(Type.String({ minLength: 1 })),
  pix: Type.Optional(Type.Array(WirePix)),
};

export const WireCob = Type.Object({
  txid: CobTxid,
  status: CobStatus,
  calendario: Type.Object({ criacao: Instant, expiracao: Type.Integer({ minimum: 1 }) }),
  ...COB_AFTER_CALENDAR,
});
export type WireCobBody = Static<typeof WireCob>;

export const WireCobV = Type.Object({
  txid: CobTxid,
  status: CobStatus,
  calendario: Type.Object({
    criacao: Instant,
    dataDeVencimento: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
    validadeAposVencimento: Type.Integer({ minimum: 0 }),
  }),
  ...COB_AFTER_CALENDAR,
});
export type WireCobVBody = Static<typeof WireCobV>;

export const WirePixList = Type.Object({
  parametros: Type.Object({
    paginacao: Type.Object({
      paginaAtual: Type.Integer({ minimum: 0 }),
      quantidadeDePaginas: Type.Integer({ minimum: 0 }),
    }),
  }),
  pix: Type.Optional(Type.Array(WirePix)),
});
export type WirePixListBody = Static<typeof WirePixList>;

/** The body the PSP POSTs to `{webhookUrl}/pix`: the Pix received (and refunds that reached a final status). */
export const WirePixNotification = Type.Object({ pix: Type.Array(WirePix, { maxItems: 1_000 }) });
export type WirePixNotificationBody = Static<typeof WirePixNotification>;

/** RFC 7807 problem, as every API Pix error answer. */
export const WireProblem = Type.Object({
  type: Type.String(),
  title: Type.Optional(Type.String()),
  status: Type.Optional(Type.Integer()),
  detail: Type.Optional(Type.String()),
  violacoes: Type.Optional(
    Type.Array(
      Type.Object({
        razao: Type.Optional(Type.String()),
        propriedade: Type.Optional(Type.String()),
      }),
    ),
  ),
});
export type WireProblemBody = Static<typeof WireProblem>;
