// A full GC in another process, on request: through the V8 inspector the soak's services listen on (on
// 127.0.0.1 only, for the run), `HeapProfiler.collectGarbage` runs a Mark-Compact that --trace-gc prints
// like any other. A short run then has a live-heap sample at every sample point instead of the one or two
// full GCs V8 chooses to run in two minutes, so its memory verdict judges something (issue 16 item 12).

/** Asks the process whose inspector listens on `port` for a full GC; resolves when it is done. */
export async function forceFullGc(port: number, timeoutMs = 5_000): Promise<void> {
  const signal = AbortSignal.timeout(timeoutMs);
  const targets = (await (
    await fetch(`http://127.0.0.1:${port}/json/list`, { signal })
  ).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${port}`);
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`full GC on port ${port}: no answer within ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.addEventListener('open', () =>
        socket.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })),
      );
      socket.addEventListener('message', (event) => {
        const answer = JSON.parse(String(event.data)) as {
          id?: number;
          error?: { message: string };
        };
        if (answer.id !== 1) return;
        clearTimeout(timer);
        if (answer.error === undefined) resolve();
        else reject(new Error(answer.error.message));
      });
      socket.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(`inspector on port ${port} refused the connection`));
      });
    });
  } finally {
    socket.close();
  }
}
