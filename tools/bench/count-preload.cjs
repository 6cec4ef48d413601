'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (node --require), loaded before any module system of the app */
// Loaded into each service the bench starts (`node --require tools/bench/count-preload.cjs …`): counts what
// the process asks of PostgreSQL and of other HTTP servers, and what HTTP requests it receives, and writes
// the running totals to $BENCH_COUNTERS_DIR/<pid>.json every 200 ms and at exit. Counting only: nothing is
// changed, delayed or logged. The bench turns the totals' deltas into figures per charge (tools/bench/counts.ts).
//
// - SQL: every `pg.Client#query` call (one round trip each; a pool's query goes through it too), by its first
//   keyword; `transactions` is what PostgreSQL counts as xact_commit/xact_rollback for this process: each
//   COMMIT and ROLLBACK, and each statement sent outside BEGIN … COMMIT (autocommit).
// - HTTP out: every request undici makes (npm undici and Node's fetch publish `undici:request:create`) and every
//   node:http client request (`http.client.request.start`), by host:port.
// - HTTP in: every request a node:http server receives (`http.server.request.start`).
// - Kafka: every request kafkajs sends to a broker (Produce, Fetch, OffsetCommit, Heartbeat, …), by API name.
// - TCP connections the process opens (`net.client.socket`: HTTP, PostgreSQL, Kafka alike): ~0 per charge when
//   every client keeps its connections alive.
const dc = require('node:diagnostics_channel');
const { writeFileSync, renameSync } = require('node:fs');
const { dirname, join } = require('node:path');

const dir = process.env.BENCH_COUNTERS_DIR;
if (dir) {
  const counts = {
    pid: process.pid,
    at: 0,
    sql: { statements: 0, commits: 0, rollbacks: 0, autocommit: 0, by_keyword: {} },
    http_out: {},
    http_in: 0,
    tcp_out: 0,
    kafka: {},
  };
  const add = (map, key) => (map[key] = (map[key] || 0) + 1);

  const beside = (name) => require(require.resolve(name, { paths: [dirname(process.argv[1] || process.cwd())] }));
  // pg is a package beside the service's entry (the bundles carry their own copy in node_modules): the
  // copy the service will load is the one patched. Its prototype is patched, so OpenTelemetry's wrapper
  // (installed later, on the same prototype) wraps this one and both see every query.
  try {
    const pg = beside('pg');
    const proto = pg.Client.prototype;
    const query = proto.query;
    proto.query = function countedQuery(config, ...rest) {
      const text = typeof config === 'string' ? config : config && typeof config.text === 'string' ? config.text : '';
      const keyword = (/^\s*([A-Za-z]+)/.exec(text) || [, '?'])[1].toLowerCase();
      counts.sql.statements++;
      add(counts.sql.by_keyword, keyword);
      if (keyword === 'begin' || keyword === 'start') this.__benchInTx = true;
      else if (keyword === 'commit' || keyword === 'end') {
        if (this.__benchInTx) counts.sql.commits++;
        this.__benchInTx = false;
      } else if (keyword === 'rollback' && !/^\s*rollback\s+to/i.test(text)) {
        counts.sql.rollbacks++;
        this.__benchInTx = false;
      } else if (!this.__benchInTx) counts.sql.autocommit++;
      return query.call(this, config, ...rest);
    };
  } catch {
    // A process without pg (none of ours): no SQL counted.
  }

  // kafkajs, like pg, is a package beside the entry; every request to a broker goes through Connection#send.
  try {
    const proto = beside('kafkajs/src/network/connection').prototype;
    const send = proto.send;
    proto.send = function countedSend(protocol, ...rest) {
      add(counts.kafka, (protocol && protocol.request && protocol.request.apiName) || '?');
      return send.call(this, protocol, ...rest);
    };
  } catch {
    // A process without kafkajs (the acquirer simulator): no Kafka requests counted.
  }

  dc.subscribe('undici:request:create', ({ request }) => {
    try {
      add(counts.http_out, new URL(request.origin).host);
    } catch {
      add(counts.http_out, String(request.origin));
    }
  });
  dc.subscribe('http.client.request.start', ({ request }) => add(counts.http_out, String(request.getHeader('host') ?? request.host)));
  dc.subscribe('http.server.request.start', () => counts.http_in++);
  dc.subscribe('net.client.socket', () => counts.tcp_out++);

  const file = join(dir, `${process.pid}.json`);
  const write = () => {
    counts.at = Date.now();
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(counts));
      renameSync(`${file}.tmp`, file);
    } catch {
      // The directory went away (the bench ended): nothing to report to.
    }
  };
  setInterval(write, 200).unref();
  process.on('exit', write);
}
