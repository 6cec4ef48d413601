import type { ChargeCreateParams, Gateway } from '@pgw/sdk';
import { CONNECTION_HELP, CONNECTION_OPTIONS, integerFlag, invocation, stringFlags } from '../cli';
import { UsageError, type Command, type Io } from '../cli';

// A buyer the sandbox accepts (the CPF is a generated one with valid check digits): a charge needs one,
// and a developer trying the API should not have to invent a CPF first.
export const SANDBOX_BUYER = {
  name: 'Maria Oliveira',
  email: 'maria@example.com',
  phone: '21998765432',
  document: '58267283021',
  address: {
    line_1: 'Rua do Ouvidor, 50',
    zip_code: '20040030',
    city: 'Rio de Janeiro',
    state: 'RJ',
  },
} as const;

const METHODS = {
  credit_card: 'CREDIT_CARD',
  debit_card: 'DEBIT_CARD',
  pix: 'PIX',
  boleto: 'BOLETO',
} as const;
type Method = keyof typeof METHODS;

const CREATE_OPTIONS = {
  ...CONNECTION_OPTIONS,
  ...stringFlags('amount', 'method', 'card', 'exp', 'cvv', 'holder', 'installments', 'capture'),
  ...stringFlags('buyer-document', 'buyer-email'),
};

const REFUND_OPTIONS = { ...CONNECTION_OPTIONS, ...stringFlags('amount', 'reason') };

export interface CardInput {
  number: string;
  exp: string | undefined;
  cvv: string | undefined;
  holder: string | undefined;
}

/**
 * Tokenizes the card through the SDK and returns only the token: the number goes to the gateway's
 * tokenize endpoint and nowhere else (not printed, not kept, not in an error message).
 */
export async function tokenize(gateway: Gateway, card: CardInput): Promise<string> {
  const match = /^(\d{1,2})\/(\d{4})$/.exec(card.exp ?? '12/2031');
  if (match === null) throw new UsageError('--exp is MM/YYYY');
  const token = await gateway.tokens.create({
    card: {
      number: card.number,
      exp_month: Number(match[1]),
      exp_year: Number(match[2]),
      cvv: card.cvv ?? '123',
      holder_name: card.holder ?? 'MARIA OLIVEIRA',
    },
  });
  return token.id;
}

export function chargeParams(
  method: Method,
  amount: number,
  extra: {
    cardToken?: string;
    installments?: number;
    capture?: 'automatic' | 'manual';
    buyerDocument?: string;
    buyerEmail?: string;
  },
): ChargeCreateParams {
  const buyer = {
    ...SANDBOX_BUYER,
    ...(extra.buyerDocument === undefined ? {} : { document: extra.buyerDocument }),
    ...(extra.buyerEmail === undefined ? {} : { email: extra.buyerEmail }),
  };
  const card = method === 'credit_card' || method === 'debit_card';
  return {
    amount,
    payment_method: METHODS[method],
    buyer,
    ...(card ? { card_token: extra.cardToken, installments: extra.installments ?? 1 } : {}),
    ...(extra.capture === undefined ? {} : { capture_method: extra.capture }),
  } as ChargeCreateParams;
}

const isMethod = (value: string): value is Method => Object.hasOwn(METHODS, value);

export const charges: Command = {
  summary: 'create, get, capture and refund charges',
  usage: `pgw charges create --amount CENTS [--method credit_card|debit_card|pix|boleto] [--card NUMBER] [--installments N]
pgw charges get ch_…
pgw charges capture ch_…
pgw charges refund ch_… [--amount CENTS] [--reason TEXT]

create: a card charge tokenizes --card through the API first (the number is sent once, to tokenize, and
never printed or kept); --method defaults to credit_card when --card is given. The buyer is a sandbox one
unless --buyer-document / --buyer-email say otherwise.
  --amount CENTS          the amount in cents (1000 is R$ 10,00)
  --method M              credit_card, debit_card, pix or boleto
  --card NUMBER           a test card (4111111111111111 is approved; see docs/openapi.json for the others)
  --exp MM/YYYY --cvv 123 --holder NAME   the card's other fields (defaults 12/2031, 123, MARIA OLIVEIRA)
  --installments N        1 to 24 (default 1)
  --capture manual        authorize now and capture later with pgw charges capture

${CONNECTION_HELP}`,

  async run(argv: string[], io: Io) {
    const [action, ...rest] = argv;
    switch (action) {
      case 'create':
        return create(rest, io);
      case 'get':
      case 'capture': {
        const call = invocation(rest, io, CONNECTION_OPTIONS, 1);
        const id = call.arg(0, 'the charge id (ch_…)');
        const gateway = call.gateway();
        return call.print(
          action === 'get' ? await gateway.charges.retrieve(id) : await gateway.charges.capture(id),
        );
      }
      case 'refund': {
        const call = invocation(rest, io, REFUND_OPTIONS, 1);
        const { values } = call;
        const id = call.arg(0, 'the charge id (ch_…)');
        const params = {
          ...(values.amount === undefined
            ? {}
            : { amount_cents: integerFlag('amount', values.amount) }),
          ...(values.reason === undefined ? {} : { reason: values.reason }),
        };
        return call.print(await call.gateway().charges.refund(id, params));
      }
      default:
        throw new UsageError(
          action === undefined
            ? 'missing action: create, get, capture or refund'
            : `unknown action: ${action}`,
        );
    }
  },
};

async function create(argv: string[], io: Io): Promise<void> {
  const call = invocation(argv, io, CREATE_OPTIONS, 0);
  const { values } = call;
  const amount = integerFlag('amount', values.amount);
  const method = values.method ?? (values.card === undefined ? undefined : 'credit_card');
  if (method === undefined) throw new UsageError('--method is required without --card');
  if (!isMethod(method))
    throw new UsageError(`--method is credit_card, debit_card, pix or boleto, not ${method}`);
  const card = method === 'credit_card' || method === 'debit_card';
  if (card && values.card === undefined) throw new UsageError(`--card is required for ${method}`);
  if (!card && values.card !== undefined)
    throw new UsageError(`--card is for card charges, not ${method}`);
  if (values.capture !== undefined && values.capture !== 'manual' && values.capture !== 'automatic')
    throw new UsageError('--capture is manual or automatic');
  const format = call.format();
  const gateway = call.gateway();
  const cardToken =
    values.card === undefined
      ? undefined
      : await tokenize(gateway, {
          number: values.card,
          exp: values.exp,
          cvv: values.cvv,
          holder: values.holder,
        });
  const charge = await gateway.charges.create(
    chargeParams(method, amount, {
      ...(cardToken === undefined ? {} : { cardToken }),
      ...(values.installments === undefined
        ? {}
        : { installments: integerFlag('installments', values.installments) }),
      ...(values.capture === undefined ? {} : { capture: values.capture }),
      ...(values['buyer-document'] === undefined
        ? {}
        : { buyerDocument: values['buyer-document'] }),
      ...(values['buyer-email'] === undefined ? {} : { buyerEmail: values['buyer-email'] }),
    }),
  );
  call.print(charge, format);
}
