// Stands in for node:crypto in the browser bundle (vite.config.js): the SDK's webhook verification is
// bundled with it but never called here, since a browser does not receive deliveries.
const unavailable = (): never => {
  throw new Error('webhook signatures are verified on a server, not in the dashboard');
};
export const createHmac = unavailable;
export const timingSafeEqual = unavailable;
