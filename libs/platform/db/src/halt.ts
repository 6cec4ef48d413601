// Stopping the process for a broken invariant (docs/engineering.md, "Broken invariants"): a consumer, the
// outbox relay or a background loop (loop.ts) that finds the state it relies on broken must neither carry on
// nor try again next round.

let halt: (error: unknown) => void = (error) => {
  // Thrown again outside any handler, it is an uncaught exception: runMain flushes the telemetry and exits 1,
  // Kubernetes starts the pod again, and the batch (rolled back, never marked handled) is delivered again.
  setImmediate(() => {
    throw error;
  });
};

/** Stops the process, as an uncaught exception does. */
export function haltProcess(error: unknown): void {
  halt(error);
}

/** For specs, whose worker must not die: replaces the halt and returns how to restore it. */
export function replaceHalt(next: (error: unknown) => void): () => void {
  const previous = halt;
  halt = next;
  return () => {
    halt = previous;
  };
}
