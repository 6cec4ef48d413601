// The end of the telemetry flow scripts (metrics/metrics-flow.ts, tracing/trace-flow.ts), which a spec
// starts as a child process and reads one line of. It imports nothing instrumented: a script imports it
// before the code it drives is loaded, after telemetry started.

/**
 * Runs `flow` (which loads what it drives only when called), writes its result to stdout as one line
 * `<marker> <JSON>`, shuts telemetry down, and ends the process: 0, or 1 with `<name> failed: <stack>` on
 * stderr.
 */
export function runFlowScript<T>(
  name: string,
  marker: string,
  telemetry: { shutdown: () => Promise<void> },
  flow: () => Promise<T>,
): void {
  const main = async (): Promise<void> => {
    try {
      const result = await flow();
      // Wait for the pipe to take it all: process.exit right after a large write would cut it short.
      await new Promise<void>((resolve) =>
        process.stdout.write(`${marker} ${JSON.stringify(result)}\n`, () => resolve()),
      );
    } finally {
      await telemetry.shutdown();
    }
  };
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(
        `${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exit(1);
    },
  );
}
