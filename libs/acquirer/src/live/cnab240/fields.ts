import { assert } from '@pgw/domain';
// Fixed-width fields of a CNAB 240 record, and one encoder and one decoder driven by a field table, so that
// what is written and what is read back are the same positions by construction. The FEBRABAN formats:
// numeric fields are right-aligned and zero-filled; alphanumeric ones left-aligned, blank-filled, upper
// case, without accents; dates DDMMAAAA (zeros when absent); values in cents with the comma implied.

export const RECORD_LENGTH = 240;

export type FieldType =
  /** Digits, right-aligned, zero-filled. */
  | 'num'
  /** Text, left-aligned, blank-filled; upper case ASCII. */
  | 'alpha'
  /** A calendar date as DDMMAAAA; zeros for none. */
  | 'date'
  /** Integer cents, right-aligned, zero-filled (picture 9(n)V99). */
  | 'cents'
  /** Reserved: blanks on write, ignored on read. */
  | 'blank';

export interface Field {
  name: string;
  /** 1-based first position, as the FEBRABAN tables number them. */
  from: number;
  /** 1-based last position, inclusive. */
  to: number;
  type: FieldType;
}

export type FieldValue = string | number | null;
export type DecodedValue = string | number | null;

/** A record's field table. Asserted at definition: the fields cover 1..240 in order, with no gap and no overlap. */
export function recordLayout(
  name: string,
  fields: ReadonlyArray<readonly [string, number, number, FieldType]>,
): readonly Field[] {
  const layout = fields.map(([fieldName, from, to, type]) => ({ name: fieldName, from, to, type }));
  let next = 1;
  for (const field of layout) {
    const contiguous = field.from === next && field.to >= field.from;
    const where = { layout: name, field: field.name, from: field.from, expected: next };
    assert(contiguous, 'cnab240.layout-contiguous', where);
    next = field.to + 1;
  }
  const end = { layout: name, end: next - 1, expected: RECORD_LENGTH };
  assert(next === RECORD_LENGTH + 1, 'cnab240.layout-fills-record', end);
  return layout;
}

/** One 240-character record from a field table; a field missing from `values` is zeros (numeric) or blanks. */
export function encodeRecord(
  layout: readonly Field[],
  values: Readonly<Record<string, FieldValue>>,
): string {
  let line = '';
  for (const field of layout) line += encodeField(field, values[field.name] ?? null);
  assert(line.length === RECORD_LENGTH, 'cnab240.record-length', { length: line.length });
  return line;
}

/** The fields of one record (blank fields left out): numbers for `cents`, YYYY-MM-DD or null for dates, trimmed text otherwise. */
export function decodeRecord(layout: readonly Field[], line: string): Record<string, DecodedValue> {
  if (line.length !== RECORD_LENGTH)
    throw new RangeError(`a CNAB 240 record has ${RECORD_LENGTH} characters, not ${line.length}`);
  const out: Record<string, DecodedValue> = {};
  for (const field of layout) {
    if (field.type === 'blank') continue;
    out[field.name] = decodeField(field, line.slice(field.from - 1, field.to));
  }
  return out;
}

function width(field: Field): number {
  return field.to - field.from + 1;
}

function encodeField(field: Field, value: FieldValue): string {
  const size = width(field);
  switch (field.type) {
    case 'blank':
      return ' '.repeat(size);
    case 'alpha': {
      const text = value === null ? '' : toCnabText(String(value));
      // Text is the one kind of field a layout may cut: a name longer than its field is shortened, as banks do.
      return text.slice(0, size).padEnd(size, ' ');
    }
    case 'num': {
      const digits = value === null ? '' : String(value);
      if (!/^\d*$/.test(digits)) throw new RangeError(`${field.name}: "${digits}" is not digits`);
      return fitDigits(field, digits);
    }
    case 'cents': {
      if (value === null) return '0'.repeat(size);
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new RangeError(`${field.name}: cents must be a non-negative integer`);
      return fitDigits(field, String(value));
    }
    case 'date': {
      if (value === null) return '0'.repeat(size);
      const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value));
      if (m === null || size !== 8)
        throw new RangeError(`${field.name}: "${String(value)}" is not YYYY-MM-DD`);
      return `${m[3]}${m[2]}${m[1]}`;
    }
  }
}

function fitDigits(field: Field, digits: string): string {
  const size = width(field);
  // A number that does not fit would silently become another number: refuse it.
  if (digits.length > size)
    throw new RangeError(`${field.name}: ${digits.length} digits do not fit in ${size}`);
  return digits.padStart(size, '0');
}

function decodeField(field: Field, raw: string): DecodedValue {
  switch (field.type) {
    case 'blank':
      return null;
    case 'alpha':
      return raw.trimEnd();
    case 'num':
      return raw;
    case 'cents':
      // Some banks leave an unused value field blank instead of zeros.
      if (/^ *$/.test(raw)) return 0;
      if (!/^\d+$/.test(raw))
        throw new RangeError(`${field.name}: "${raw}" is not a value in cents`);
      return Number(raw);
    case 'date': {
      if (/^(0{8}| {8})$/.test(raw)) return null;
      const m = /^(\d{2})(\d{2})(\d{4})$/.exec(raw);
      if (m === null) throw new RangeError(`${field.name}: "${raw}" is not DDMMAAAA`);
      const iso = `${m[3]}-${m[2]}-${m[1]}`;
      if (
        Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ||
        new Date(`${iso}T00:00:00Z`).toISOString().slice(0, 10) !== iso
      ) {
        throw new RangeError(`${field.name}: ${raw} is not a calendar date`);
      }
      return iso;
    }
  }
}

/**
 * Text as CNAB files carry it: accents removed, upper case, and anything outside plain ASCII letters,
 * digits and a few marks turned into a blank (banks refuse "Ç" and the like, and one byte must stay one
 * position).
 */
export function toCnabText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9 .,\-/:_@&()]/g, ' ');
}
