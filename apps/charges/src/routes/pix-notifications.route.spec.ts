import { createPgliteKnex } from '@pgw/platform-db';
import { asOperator, buyer, merchant, post, startCharges, type Harness } from '../testing/harness';

// A PSP's notification is a hint: a charge moves only when its PSP confirms the payment, so a notification
// naming an unpaid charge, a txid that is not ours, or a malformed body changes nothing.
jest.setTimeout(30_000);

const knex = createPgliteKnex(null);
let h: Harness;
beforeAll(async () => {
  h = await startCharges(knex);
});
afterAll(async () => {
  await h.stop();
  await knex.destroy();
});

const notify = (body: unknown, headers = asOperator()) => post(h, '/provider/v1/pix/notifications/pix', headers, body);
const received = (txid: string) => ({ endToEndId: 'E12345678202603021200abcdefghijk', txid, valor: '10.00', horario: '2026-03-02T12:00:00.000Z' });

describe('POST /provider/v1/pix/notifications/pix', () => {
  it('Proves a notification of a Pix its PSP has not seen paid leaves the charge pending, and one of a paid Pix pays it once', async () => {
    // A live key of a tenant without rails: its Pix is at the simulator (the sandbox), which stands for the PSP here.
    const live = await merchant(h, { livemode: true });
    const created = await post(h, '/api/v1/charges', { ...live.key, 'idempotency-key': 'pix-n1' }, { amount: 1_000, payment_method: 'PIX', buyer: buyer() });
    expect(created.statusCode).toBe(201);
    const txid = created.json().acquirer_transaction_id as string;

    const early = await notify({ pix: [received(txid), received('notoursnotoursnotoursnotours12')] });
    expect(early.json()).toMatchObject({ received: 2, paid: 0 });
    expect(await h.db.read((q) => q('charges').where({ id: created.json().id }).first('status'))).toEqual({ status: 'pending' });

    // The buyer pays at the PSP (the simulator's own pay call, not the operator's simulation, which would pay the charge itself).
    expect((await h.peers.request('acquirer-sim', { method: 'POST', url: `/acquirer/v1/pix/charges/${created.json().id}/pay`, body: {} })).statusCode).toBe(200);
    expect((await notify({ pix: [received(txid)] })).json()).toMatchObject({ received: 1, paid: 1 });
    expect((await notify({ pix: [received(txid)] })).json()).toMatchObject({ received: 1, paid: 0 });
    expect(await h.db.read((q) => q('charges').where({ id: created.json().id }).first('status'))).toEqual({ status: 'paid' });
  });

  it('Proves a body that is not an API Pix notification is refused whole, and only the gateway-signed principal is let in', async () => {
    expect((await notify({ pix: [{ txid: 'x' }] })).statusCode).toBe(422);
    expect((await notify({ other: true })).statusCode).toBe(422);
    const live = await merchant(h, { livemode: true });
    expect((await notify({ pix: [received('abc')] }, live.key)).statusCode).toBe(401);
  });
});
