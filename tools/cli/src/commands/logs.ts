// `pgw logs`: the deliveries of one webhook endpoint as they happen, by polling the operator API's list
// (newest first) and printing each delivery when it first appears and whenever its status or attempt
// count changes. Ctrl-C ends it; --once prints what is there and exits.
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebhookDelivery } from '../admin';
import {
  ADMIN_HELP,
  ADMIN_OPTIONS,
  adminOf,
  integerFlag,
  parse,
  positional,
  type Command,
  type Io,
} from '../cli';

const OPTIONS = {
  ...ADMIN_OPTIONS,
  'interval-ms': { type: 'string' },
  once: { type: 'boolean' },
} as const;

// One page of the newest: a tail shows what happens now, not the endpoint's whole history.
const PAGE_LIMIT = 100;

const line = (d: WebhookDelivery) =>
  `${d.updated_at}  ${d.status.padEnd(9)}  ${d.event_type}  ${d.event_id}  ${d.id}  attempts ${d.attempt_count}${d.last_status_code === null ? '' : `  last ${d.last_status_code}`}${d.last_error === null ? '' : `  ${d.last_error}`}\n`;

export const logs: Command = {
  summary: 'tail the deliveries of a webhook endpoint',
  usage: `pgw logs we_… [--interval-ms 1000] [--once]

Prints each delivery of the endpoint (time, status, event type and id, delivery id, attempts, last answer),
oldest first, then polls and prints new ones and every change of status. The endpoint id is the one
pgw listen prints, or the one the operator API answered when it was created.
  --interval-ms N         between polls (default 1000)
  --once                  print the current deliveries and exit

${ADMIN_HELP}`,

  async run(argv: string[], io: Io) {
    const { values, positionals } = parse(argv, OPTIONS, 1);
    const endpointId = positional(positionals, 0, 'the webhook endpoint id (we_…)');
    const intervalMs = integerFlag('interval-ms', values['interval-ms'], 1_000);
    const admin = adminOf(values, io);
    // What each delivery of the last page looked like; rebuilt from every page, so it stays one page long.
    let seen = new Map<string, string>();
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      while (!stop.signal.aborted) {
        const page = await admin.deliveries(endpointId, PAGE_LIMIT);
        const now = new Map<string, string>();
        for (const delivery of [...page.data].reverse()) {
          const state = `${delivery.status}/${delivery.attempt_count}`;
          now.set(delivery.id, state);
          if (seen.get(delivery.id) !== state) io.out(line(delivery));
        }
        seen = now;
        if (values.once === true) return;
        await sleep(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
