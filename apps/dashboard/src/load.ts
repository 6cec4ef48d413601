import { useEffect, useState } from 'react';

/** Runs `load` when `deps` change; the value, the error, and a way to run it again. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
): { value: T | undefined; error: unknown; reload: () => void } {
  const [state, setState] = useState<{ value: T | undefined; error: unknown }>({
    value: undefined,
    error: null,
  });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    load().then(
      (value) => current && setState({ value, error: null }),
      (error: unknown) => current && setState({ value: undefined, error }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  return { ...state, reload: () => setRound((n) => n + 1) };
}

/**
 * Runs an action (a call that changes something), keeping its error (message and request id) to show:
 * `act` answers the call's value, or undefined when it failed. `setError` shows a problem found before
 * any call is made.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const act = async <T>(call: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    try {
      const value = await call();
      setError(null);
      return value;
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, act };
}

/** One page of a list, as both the SDK and /admin/v1 answer it. */
export interface ListPage<T> {
  data: readonly T[];
  page: number;
  total_pages: number;
}

/**
 * A paged list: `load(page)` run for the page shown, again when `deps` change. `setPage` moves; `first()`
 * shows the first page read anew (where a list that is newest first puts what was just made).
 */
export function usePagedLoad<T>(load: (page: number) => Promise<T>, deps: readonly unknown[]) {
  const [page, setPage] = useState(1);
  const loaded = useLoad(() => load(page), [...deps, page]);
  const first = () => (page === 1 ? loaded.reload() : setPage(1));
  return { ...loaded, page, setPage, first };
}
