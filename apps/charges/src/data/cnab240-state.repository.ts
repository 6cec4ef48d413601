import { assert } from '@pgw/domain';
import {
  emptyState,
  parseCnab240State,
  type Cnab240Decision,
  type Cnab240State,
  type Cnab240Store,
} from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';

// The CNAB 240 state of one bank account in charges' database, so that every replica registers slips on
// the same state and the exchange job, whichever replica runs it, sees them all. Each update is one
// transaction that locks the account's row (SELECT … FOR UPDATE): two replicas' registrations are
// serialised, so neither hands out a nosso número the other did nor saves over the other's slip. The
// lock is held only while the adapter decides (pure, no I/O): remittance files are written and return
// movements handed to the caller outside it. Two exchanges never overlap: the job runs under its lease.

export class PgCnab240Store implements Cnab240Store {
  constructor(
    private readonly db: Db,
    /** The account's rail record (`cnab240-bb:acme-bb`): tenants sharing credentials share the state. */
    readonly account: string,
  ) {}

  async load(): Promise<Cnab240State> {
    const row = await this.db.read((q) =>
      q('cnab240_states')
        .where({ account: this.account })
        .first<{ state: string } | undefined>('state'),
    );
    return row === undefined
      ? emptyState()
      : parseCnab240State(row.state, `cnab240_states ${this.account}`);
  }

  update<T>(decide: (state: Cnab240State) => Cnab240Decision<T>): Promise<T> {
    return this.db.tx(async (trx) => {
      // The row exists before it is locked: two first updates of an account would otherwise both find none.
      await trx.raw(
        'insert into cnab240_states (account, state, updated_at) values (?, ?, now()) on conflict (account) do nothing',
        [this.account, JSON.stringify(emptyState())],
      );
      const row = await trx('cnab240_states')
        .where({ account: this.account })
        .forUpdate()
        .first<{ state: string } | undefined>('state');
      assert(row !== undefined, 'cnab240-state.row-present-after-insert', {
        account: this.account,
      });
      const { next, result } = decide(
        parseCnab240State(row.state, `cnab240_states ${this.account}`),
      );
      if (next !== null)
        await trx('cnab240_states')
          .where({ account: this.account })
          .update({ state: JSON.stringify(next), updated_at: trx.fn.now() });
      return result;
    });
  }
}
