// Paged lists (contract §4a): `page` and `limit`, most recent first, with `total_pages`. A list is both a
// promise of its first page and an async iterable over every item of every page from there:
//   const first = await gateway.receivables.list({ limit: 10 });
//   for await (const receivable of gateway.receivables.list({ limit: 100 })) { … }

export interface Page<T> {
  object: 'list' | string;
  data: T[];
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  request_id: string;
}

// 10,000 pages of 100 items is a million items: a bound that a real seller's list stays far below, so
// reaching it means a server that never reports the last page.
const PAGES_MAX = 10_000;

// The generated envelope of a route is a deferred type inside generic code; its shape is the contract's.
const envelope = <T>(page: unknown) => page as Page<T>;

/** `P` is the route's own list envelope type (from the document), which has the shape of Page<T>. */
export class PagedList<T, P = Page<T>> implements PromiseLike<P>, AsyncIterable<T> {
  private first: Promise<P> | null = null;

  constructor(
    private readonly fetchPage: (page: number) => Promise<P>,
    private readonly startPage: number,
  ) {}

  /** The first page requested (page `startPage`), fetched once however often it is awaited. */
  firstPage(): Promise<P> {
    this.first ??= this.fetchPage(this.startPage);
    return this.first;
  }

  then<R1 = P, R2 = never>(
    onfulfilled?: ((value: P) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    // Newest first, by page number: an item created while iterating pushes the others one place down,
    // so the next page can begin with an item already seen. Those are skipped; none is missed.
    const seen = new Set<string>();
    let page = envelope<T>(await this.firstPage());
    for (let pages = 1; ; pages += 1) {
      for (const item of page.data) {
        const id =
          typeof item === 'object' && item !== null && 'id' in item && typeof item.id === 'string'
            ? item.id
            : null;
        if (id !== null) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        yield item;
      }
      if (page.data.length === 0 || page.page >= page.total_pages) return;
      if (pages >= PAGES_MAX)
        throw new Error(
          `a list longer than ${PAGES_MAX} pages: the server never reported its last page`,
        );
      page = envelope<T>(await this.fetchPage(page.page + 1));
    }
  }

  /** Every item from the first page on, at most `itemsMax` of them. */
  async toArray(itemsMax: number): Promise<T[]> {
    const items: T[] = [];
    if (itemsMax <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= itemsMax) break;
    }
    return items;
  }
}
