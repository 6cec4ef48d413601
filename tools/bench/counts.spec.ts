import { flattenProcesses, perCharge, type ProcessCounters } from './counts';

describe('bench counted figures', () => {
  it('per charge: the load window less the idle rate over the same time', () => {
    // Idle: 10 statements in 2 s (5/s). Load: 10 s, 1,050 statements for 100 charges → (1050 − 5 × 10) / 100.
    const figures = perCharge(
      [
        { atMs: 0, values: { s: 100 } },
        { atMs: 2000, values: { s: 110 } },
      ],
      [
        { atMs: 2000, values: { s: 110 } },
        { atMs: 12_000, values: { s: 1160, late: 30 } },
      ],
      100,
    );
    expect(figures.s).toEqual({ per_charge: 10, gross_per_charge: 10.5, idle_per_s: 5 });
    // A counter that first appeared during the load counts from 0, with no idle rate.
    expect(figures.late).toEqual({ per_charge: 0.3, gross_per_charge: 0.3, idle_per_s: 0 });
  });

  it('never goes below zero when idle work outpaced the load window', () => {
    const figures = perCharge(
      [
        { atMs: 0, values: { s: 0 } },
        { atMs: 1000, values: { s: 50 } },
      ],
      [
        { atMs: 1000, values: { s: 50 } },
        { atMs: 2000, values: { s: 60 } },
      ],
      10,
    );
    expect(figures.s?.per_charge).toBe(0);
  });

  it('names each service’s counters by app and each call by the app it went to', () => {
    const proc = (
      sql: Partial<ProcessCounters['sql']>,
      httpOut: Record<string, number>,
      httpIn: number,
      tcpOut = 0,
    ): ProcessCounters => ({
      pid: 1,
      at: 0,
      sql: { statements: 0, commits: 0, rollbacks: 0, autocommit: 0, by_keyword: {}, ...sql },
      http_out: httpOut,
      http_in: httpIn,
      tcp_out: tcpOut,
    });
    const apps: Record<string, string> = {
      '127.0.0.1:18202': 'vault',
      '127.0.0.1:18201': 'acquirer-sim',
      '127.0.0.1:18203': 'charges',
    };
    const flat = flattenProcesses(
      {
        gateway: proc({ statements: 2, autocommit: 2 }, { '127.0.0.1:18203': 10 }, 10),
        charges: proc(
          { statements: 9, commits: 2, autocommit: 1, rollbacks: 1 },
          { '127.0.0.1:18202': 10, '127.0.0.1:18201': 10 },
          10,
          2,
        ),
      },
      (host) => apps[host] ?? host,
    );
    expect(flat).toEqual({
      'sql_statements.gateway': 2,
      'sql_statements.charges': 9,
      'sql_statements.total': 11,
      'sql_transactions.gateway': 2,
      'sql_transactions.charges': 4,
      'sql_transactions.total': 6,
      'http_calls.gateway->charges': 10,
      'http_calls.charges->vault': 10,
      'http_calls.charges->acquirer-sim': 10,
      'http_calls.total': 30,
      'http_received.gateway': 10,
      'http_received.charges': 10,
      'tcp_connections.gateway': 0,
      'tcp_connections.charges': 2,
      'tcp_connections.total': 2,
    });
  });
});
