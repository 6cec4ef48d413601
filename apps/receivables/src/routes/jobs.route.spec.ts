// POST /admin/v1/jobs/{receivables-release,settlement-run}: the operator's door and the body's rules.
import { PRINCIPAL_HEADER } from '@pgw/platform-http';
import { listsFixture } from '../scenarios/lists.fixture';

const lists = listsFixture();

describe('POST /admin/v1/jobs/{receivables-release,settlement-run}', () => {
  it('runs jobs only for the operator, with a valid as_of_date, defaulting to the clock today', async () => {
    const asKey = await lists.money.receivables.app.inject({
      method: 'POST',
      url: '/admin/v1/jobs/settlement-run',
      headers: { [PRINCIPAL_HEADER]: lists.money.principal() },
    });
    expect(asKey.statusCode).toBe(401);
    for (const payload of [
      { as_of_date: '2026-02-30' },
      { as_of_date: 'tomorrow' },
      { as_of_date: 20260302 },
      { when: '2026-03-02' },
    ]) {
      const res = await lists.money.receivables.app.inject({
        method: 'POST',
        url: '/admin/v1/jobs/receivables-release',
        headers: { [PRINCIPAL_HEADER]: lists.money.operatorPrincipal() },
        payload,
      });
      expect(res.statusCode).toBe(422);
    }
    lists.money.clock.set(new Date('2026-03-05T10:00:00Z'));
    const res = await lists.money.job('receivables-release');
    expect(res.body).toMatchObject({
      job: 'receivables-release',
      as_of_date: '2026-03-05',
      processed: 0,
    });
  });
});
