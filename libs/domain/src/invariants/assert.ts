// Broken invariants (STYLE.md, after TigerBeetle): a condition the code relies on and no input may break — a
// row that vanished under its lock, books that do not balance, a state the machine cannot be in. They are
// not operating errors (a declined card, a bad request: values, or an ApiError); they are bugs, or state
// that is not to be trusted. `assert` fails loudly: it tells the observer the platform installs at start
// (libs/platform/service invariants.ts logs a structured line and counts `invariants.broken`), then throws an
// InvariantError. What the throw then stops — the request, or the process — is docs/engineering.md's policy.
// This module stays pure: the logging and counting are injected, so domain code can assert too.

/** What an assertion may say about where it broke: ids, statuses, counts, amounts. Never card data. */
export type InvariantContext = Readonly<Record<string, string | number | boolean | null>>;

/** 13 digits or more, spaces, dots or dashes between them allowed (a PAN, a CNPJ): scrubbed from strings. */
const DIGIT_RUN = /\d(?:[ .-]?\d){12,}/g;

export class InvariantError extends Error {
  override readonly name = 'InvariantError';

  constructor(
    /** A stable, dotted name of what was expected (`charge.refunds-within-amount`): the metric's attribute. */
    readonly invariant: string,
    /** Safe context (see InvariantContext), already scrubbed of long digit runs. */
    readonly context: InvariantContext,
  ) {
    super(`invariant broken: ${invariant}${describe(context)}`);
  }
}

export function isInvariantError(error: unknown): error is InvariantError {
  return error instanceof InvariantError;
}

/** Told of every broken invariant before it is thrown; installed by the platform at start. */
export type BrokenInvariantObserver = (broken: InvariantError) => void;

let observer: BrokenInvariantObserver | null = null;

/**
 * Installs the process's observer (one per process: the last installed wins) and returns how to remove it.
 * Specs install their own to see what an assertion reported.
 */
export function observeBrokenInvariants(next: BrokenInvariantObserver): () => void {
  const previous = observer;
  observer = next;
  return () => {
    if (observer === next) observer = previous;
  };
}

/**
 * Asserts an invariant: when `condition` is false, reports it to the observer and throws an InvariantError.
 * Not for input validation (that is a 4xx or a value the caller handles).
 */
export function assert(
  condition: unknown,
  invariant: string,
  context: InvariantContext = {},
): asserts condition {
  if (condition) return;
  const broken = new InvariantError(invariant, scrub(context));
  try {
    observer?.(broken);
  } catch {
    // Reporting must never hide the failure itself: the throw below is what stops the work.
  }
  throw broken;
}

/** For the `default` branch of an exhaustive switch: TypeScript proves it unreachable, this checks it at run time. */
export function unreachable(
  value: never,
  invariant: string,
  context: InvariantContext = {},
): never {
  assert(false, invariant, {
    ...context,
    value: typeof value === 'string' || typeof value === 'number' ? value : String(value),
  });
}

function scrub(context: InvariantContext): InvariantContext {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(context)) {
    // Numbers are amounts, counts and instants: a PAN is always a string here (normalizePan).
    out[key] = typeof value === 'string' ? value.replace(DIGIT_RUN, '[digits]') : value;
  }
  return out;
}

function describe(context: InvariantContext): string {
  const entries = Object.entries(context);
  if (entries.length === 0) return '';
  return ` (${entries.map(([key, value]) => `${key}=${String(value)}`).join(', ')})`;
}
