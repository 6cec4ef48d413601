// What the exemplars fixture serves and calls with, loaded by it only once telemetry has started (a
// relative require, as a service's main.ts loads its modules after instrument.ts).
export { buildApp, timeClientRequest } from '@pgw/platform-http';
