// `pgw trigger <event>`: makes the sandbox emit an event of contract §7 the way it happens for real — a
// charge made through the public API (the SDK), then the operator simulations of contract §5 for what
// only the outside world does (a Pix paid, a boleto paid, a chargeback opened and resolved).
import { ADMIN_HELP, ADMIN_OPTIONS, adminOf, integerFlag, invocation, stringFlags } from '../cli';
import { UsageError, type Command, type Io } from '../cli';
import { chargeParams, tokenize } from './charges';

const OPTIONS = { ...ADMIN_OPTIONS, ...stringFlags('amount', 'charge', 'reason-code') };

const TRIGGERS = [
  'charge.paid',
  'charge.refunded',
  'pix.paid',
  'boleto.paid',
  'chargeback',
  'chargeback.won',
  'chargeback.lost',
] as const;
type Trigger = (typeof TRIGGERS)[number];
const isTrigger = (value: string): value is Trigger =>
  (TRIGGERS as readonly string[]).includes(value);

// The simulator's approved test card (contract §6).
const APPROVED_CARD = '4111111111111111';

export const trigger: Command = {
  summary: 'make the sandbox emit an event (charge.paid, pix.paid, boleto.paid, chargeback …)',
  usage: `pgw trigger <event> [--amount CENTS] [--charge ch_…]

  charge.paid        a card charge with an approved test card, paid at once          (charge.created, charge.paid)
  charge.refunded    the same, then refunded in full                                  (… refund.succeeded, charge.refunded)
  pix.paid           a Pix charge, then paid by the simulated PSP                     (charge.created, charge.paid)
  boleto.paid        a boleto charge, then paid by the simulated bank                 (charge.created, charge.paid)
  chargeback         a chargeback opened on --charge, or on a new paid card charge    (chargeback.opened, charge.chargeback)
  chargeback.won     … then resolved in the seller's favour                           (… chargeback.won)
  chargeback.lost    … then resolved against the seller                               (… chargeback.lost)

Prints the charge or chargeback as it ends. The simulations are operator routes: they need the admin token.
  --amount CENTS          the charge's amount (default 1000)
  --charge ch_…           chargeback: the paid charge to dispute
  --reason-code CODE      chargeback: the card network's reason code (default 4837)

${ADMIN_HELP}`,

  async run(argv: string[], io: Io) {
    const call = invocation(argv, io, OPTIONS, 1);
    const { values } = call;
    const name = call.arg(0, `the event: ${TRIGGERS.join(', ')}`);
    if (!isTrigger(name))
      throw new UsageError(`unknown event ${name}: one of ${TRIGGERS.join(', ')}`);
    const format = call.format();
    const amount = integerFlag('amount', values.amount, 1_000);
    const gateway = call.gateway();
    const paidCardCharge = async () => {
      const cardToken = await tokenize(gateway, {
        number: APPROVED_CARD,
        exp: undefined,
        cvv: undefined,
        holder: undefined,
      });
      return gateway.charges.create(chargeParams('credit_card', amount, { cardToken }));
    };

    if (name === 'charge.paid') return call.print(await paidCardCharge(), format);
    if (name === 'charge.refunded') {
      const charge = await paidCardCharge();
      await gateway.charges.refund(charge.id);
      return call.print(await gateway.charges.retrieve(charge.id), format);
    }
    // The rest needs the operator API: checked before any charge is made, so a missing token leaves nothing done.
    const admin = adminOf(values, io);
    if (name === 'pix.paid' || name === 'boleto.paid') {
      const pending = await gateway.charges.create(
        chargeParams(name === 'pix.paid' ? 'pix' : 'boleto', amount, {}),
      );
      return call.print(await admin.payCharge(pending.id), format);
    }
    const chargeId = values.charge ?? (await paidCardCharge()).id;
    const opened = await admin.openChargeback({
      charge_id: chargeId,
      reason_code: values['reason-code'] ?? '4837',
    });
    call.print(
      name === 'chargeback'
        ? opened
        : await admin.resolveChargeback(opened.id, name === 'chargeback.won' ? 'won' : 'lost'),
      format,
    );
  },
};
