/** What a create operation answers: its row (new, or the one a repeat of the request finds), or a refusal. */
export type Created<Row, Rejection extends string> =
  { row: Row; isNew: boolean } | { rejected: Rejection };

/**
 * The row a create inserted, new; or, when a concurrent request took the reference first (the insert
 * answered nothing), that request's row.
 */
export async function insertedOrTaken<Row>(
  inserted: Row | undefined,
  taken: () => Promise<Row | undefined>,
): Promise<{ row: Row; isNew: boolean }> {
  if (inserted !== undefined) return { row: inserted, isNew: true };
  return { row: (await taken()) as Row, isNew: false };
}

/** A repeat of the request is answered as the first one was; another request under its reference is refused. */
export function unlessReused<Row>(
  result: { row: Row; isNew: boolean },
  sameRequest: (row: Row) => boolean,
): Created<Row, 'reference_reused'> {
  return sameRequest(result.row) ? result : { rejected: 'reference_reused' };
}
