import type { FastifyBaseLogger } from 'fastify';
import type { AcquirerRouter } from '@pgw/acquirer';
import type { Db } from '@pgw/platform-db';
import type { Clock, Peers } from '@pgw/platform-service';
import type { ChargesConfig } from '../config';

/** What every route, job and consumer of charges works with. */
export interface ChargesDeps {
  db: Db;
  clock: Clock;
  /** Picks each charge's acquirer by tenant and mode (`acquirerFor`). */
  acquirers: AcquirerRouter;
  peers: Peers;
  config: ChargesConfig;
}

/** The request an operation serves, as its route hands it over: its id (on the events) and its log. */
export interface RequestContext {
  requestId: string;
  log: FastifyBaseLogger;
}
