// jest globalTeardown of `npm run test:integration`: stops the containers globalSetup started, if any.
export default async function globalTeardown(): Promise<void> {
  const started =
    (globalThis as { __pgwContainers?: { stop(): Promise<unknown> }[] }).__pgwContainers ?? [];
  await Promise.all(started.map((container) => container.stop()));
}
