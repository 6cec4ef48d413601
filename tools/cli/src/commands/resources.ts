// The read-mostly resources of the SDK, one command each: balance, receivables, settlements,
// chargebacks and anticipations. A list prints one page (the envelope), --page and --limit choose it.
import type { Gateway } from '@pgw/sdk';
import { CONNECTION_HELP, CONNECTION_OPTIONS, integerFlag, invocation, stringFlags } from '../cli';
import { UsageError, type Command, type Io } from '../cli';

const LIST_OPTIONS = { ...CONNECTION_OPTIONS, ...stringFlags('page', 'limit', 'status') };
const IDS_OPTIONS = {
  ...CONNECTION_OPTIONS,
  receivable: { type: 'string', multiple: true },
} as const;

const LIST_HELP = `  --page N --limit N      which page, and its size (1 to 100, default 50)`;

interface PageQuery {
  page?: number;
  limit?: number;
  status?: string;
}

/** A list action's arguments: the page, its size and (where the list has one) the status filter. */
function listQuery(argv: string[], io: Io, withStatus: boolean) {
  const call = invocation(argv, io, LIST_OPTIONS, 0);
  const { values } = call;
  if (!withStatus && values.status !== undefined)
    throw new UsageError('this list takes no --status');
  const query: PageQuery = {
    ...(values.page === undefined ? {} : { page: integerFlag('page', values.page) }),
    ...(values.limit === undefined ? {} : { limit: integerFlag('limit', values.limit) }),
    ...(values.status === undefined ? {} : { status: values.status }),
  };
  return { call, query };
}

/** `<resource> list` and `<resource> get <id>`: the shape of receivables, settlements and chargebacks. */
function listAndGet(
  name: string,
  idHint: string,
  statuses: string | null,
  resource: (gateway: Gateway) => {
    list: (query: PageQuery) => PromiseLike<unknown>;
    retrieve: (id: string) => Promise<unknown>;
  },
): Command {
  return {
    summary: `list and get ${name}`,
    usage: `pgw ${name} list [--page N] [--limit N]${statuses === null ? '' : ` [--status ${statuses}]`}
pgw ${name} get ${idHint}

${LIST_HELP}
${CONNECTION_HELP}`,
    async run(argv: string[], io: Io) {
      const [action, ...rest] = argv;
      if (action === 'list') {
        const { call, query } = listQuery(rest, io, statuses !== null);
        return call.print(await resource(call.gateway()).list(query));
      }
      if (action === 'get') {
        const call = invocation(rest, io, CONNECTION_OPTIONS, 1);
        return call.print(await resource(call.gateway()).retrieve(call.arg(0, idHint)));
      }
      throw new UsageError(
        action === undefined ? 'missing action: list or get' : `unknown action: ${action}`,
      );
    },
  };
}

// The SDK types each list's filters by route; the CLI passes what the user typed and lets the API judge it
// (an unknown status is the API's 422 parameter_invalid, printed as such).
type Loose = (query: PageQuery) => PromiseLike<unknown>;

export const receivables = listAndGet(
  'receivables',
  'recv_…',
  'pending|available|paid|canceled|anticipated',
  (g) => ({
    list: g.receivables.list as Loose,
    retrieve: (id) => g.receivables.retrieve(id),
  }),
);
export const settlements = listAndGet(
  'settlements',
  'set_…',
  'pending|processing|paid|failed|canceled',
  (g) => ({
    list: g.settlements.list as Loose,
    retrieve: (id) => g.settlements.retrieve(id),
  }),
);
export const chargebacks = listAndGet('chargebacks', 'cb_…', null, (g) => ({
  list: g.chargebacks.list as Loose,
  retrieve: (id) => g.chargebacks.retrieve(id),
}));

export const balance: Command = {
  summary: 'the seller’s balance, and its history',
  usage: `pgw balance [get]
pgw balance history [--page N] [--limit N]

Needs a seller-scoped key.
${LIST_HELP}
${CONNECTION_HELP}`,
  async run(argv: string[], io: Io) {
    const [action, ...rest] = argv[0]?.startsWith('-') === false ? argv : ['get', ...argv];
    if (action === 'get') {
      const call = invocation(rest, io, CONNECTION_OPTIONS, 0);
      return call.print(await call.gateway().balance.retrieve());
    }
    if (action === 'history') {
      const { call, query } = listQuery(rest, io, false);
      return call.print(await call.gateway().balance.history(query));
    }
    throw new UsageError(`unknown action: ${action}`);
  },
};

export const anticipations: Command = {
  summary: 'simulate, create, list and get anticipations',
  usage: `pgw anticipations simulate [--receivable recv_… …]
pgw anticipations create [--receivable recv_… …]
pgw anticipations list [--page N] [--limit N]
pgw anticipations get ant_…

simulate previews the fee and limits with no effect; create anticipates (all eligible receivables, or the
ones named by repeated --receivable). Needs a seller-scoped key.
${LIST_HELP}
${CONNECTION_HELP}`,
  async run(argv: string[], io: Io) {
    const [action, ...rest] = argv;
    switch (action) {
      case 'simulate':
      case 'create': {
        const call = invocation(rest, io, IDS_OPTIONS, 0);
        const { receivable } = call.values;
        const params = receivable === undefined ? {} : { receivable_ids: receivable };
        const gateway = call.gateway();
        return call.print(
          action === 'simulate'
            ? await gateway.anticipations.simulate(params)
            : await gateway.anticipations.create(params),
        );
      }
      case 'list': {
        const { call, query } = listQuery(rest, io, false);
        return call.print(await call.gateway().anticipations.list(query));
      }
      case 'get': {
        const call = invocation(rest, io, CONNECTION_OPTIONS, 1);
        const gateway = call.gateway();
        return call.print(
          await gateway.anticipations.retrieve(call.arg(0, 'the anticipation id (ant_…)')),
        );
      }
      default:
        throw new UsageError(
          action === undefined
            ? 'missing action: simulate, create, list or get'
            : `unknown action: ${action}`,
        );
    }
  },
};
