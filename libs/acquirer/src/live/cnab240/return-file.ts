import { reasonsOf, RETURN_MOVEMENTS, type MovementOutcome, type ReasonCode } from './codes';
import { decodeRecord, RECORD_LENGTH, type DecodedValue, type Field } from './fields';
import {
  FILE_HEADER,
  FILE_TRAILER,
  LOT_HEADER,
  LOT_TRAILER,
  RECORD_TYPE,
  SEGMENT_P,
  SEGMENT_Q,
  SEGMENT_R,
  SEGMENT_T,
  SEGMENT_U,
} from './layout';

// Reading a CNAB 240 file: its structure checked (record types in order, every lot's record count, the file
// trailer's lot and record counts) before any record is believed, then a return file's T/U pairs turned into
// outcomes. A malformed file is a value (`ok: false`), not an exception: it came from outside.

export type Fields = Record<string, DecodedValue>;

export interface Cnab240Detail {
  /** 1-based line of the file. */
  line: number;
  segment: string;
  /** Decoded by the segment's table; empty for a segment this reader has no table for (banks add some). */
  fields: Fields;
}

export interface Cnab240Lot {
  header: Fields;
  details: Cnab240Detail[];
  trailer: Fields;
}

export interface Cnab240File {
  header: Fields;
  lots: Cnab240Lot[];
  trailer: Fields;
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; error: string };

const SEGMENTS: Readonly<Record<string, readonly Field[]>> = {
  P: SEGMENT_P,
  Q: SEGMENT_Q,
  R: SEGMENT_R,
  T: SEGMENT_T,
  U: SEGMENT_U,
};
/** A file bigger than this is not a cobrança file of ours: refuse it before splitting it into lines. */
export const RECORDS_MAX = 1_000_000;

/** Splits and decodes a CNAB 240 file, checking its structure and its trailers' counts. */
export function readCnab240File(text: string): ReadResult<Cnab240File> {
  const lines = text.split(/\r?\n/);
  // The last CRLF leaves an empty string behind; so may a trailing end-of-file mark.
  while (lines.length > 0 && /^[\s\x1a]*$/.test(lines[lines.length - 1] ?? '')) lines.pop();
  if (lines.length > RECORDS_MAX) return fail(`more than ${RECORDS_MAX} records`);
  if (lines.length < 2) return fail('a CNAB 240 file has at least a header and a trailer');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    // Some transfer tools strip trailing blanks; a record is never longer than 240.
    if (line.length > RECORD_LENGTH)
      return fail(`line ${i + 1} has ${line.length} characters, more than ${RECORD_LENGTH}`);
    lines[i] = line.padEnd(RECORD_LENGTH, ' ');
  }
  const typeOf = (i: number): string => (lines[i] ?? '').charAt(7);
  try {
    if (typeOf(0) !== RECORD_TYPE.fileHeader)
      return fail('line 1 is not a file header (record type 0)');
    const last = lines.length - 1;
    if (typeOf(last) !== RECORD_TYPE.fileTrailer)
      return fail(`line ${last + 1} is not a file trailer (record type 9)`);
    const header = decodeRecord(FILE_HEADER, lines[0] ?? '');
    const lots: Cnab240Lot[] = [];
    let i = 1;
    while (i < last) {
      if (typeOf(i) !== RECORD_TYPE.lotHeader)
        return fail(`line ${i + 1} should open a lot (record type 1)`);
      const lotHeader = decodeRecord(LOT_HEADER, lines[i] ?? '');
      const lotNumber = lotHeader['lot'];
      const details: Cnab240Detail[] = [];
      i++;
      while (i < last && typeOf(i) === RECORD_TYPE.detail) {
        const line = lines[i] ?? '';
        if (line.slice(3, 7) !== lotNumber)
          return fail(
            `line ${i + 1} belongs to lot ${line.slice(3, 7)}, inside lot ${String(lotNumber)}`,
          );
        const segment = line.charAt(13);
        const layout = SEGMENTS[segment];
        details.push({
          line: i + 1,
          segment,
          fields: layout === undefined ? {} : decodeRecord(layout, line),
        });
        i++;
      }
      if (typeOf(i) !== RECORD_TYPE.lotTrailer || i >= last)
        return fail(`lot ${String(lotNumber)} has no trailer (record type 5) at line ${i + 1}`);
      const lotTrailer = decodeRecord(LOT_TRAILER, lines[i] ?? '');
      if (Number(lotTrailer['recordCount']) !== details.length + 2) {
        return fail(
          `lot ${String(lotNumber)}: its trailer counts ${String(lotTrailer['recordCount'])} records, the lot has ${details.length + 2}`,
        );
      }
      lots.push({ header: lotHeader, details, trailer: lotTrailer });
      i++;
    }
    const trailer = decodeRecord(FILE_TRAILER, lines[last] ?? '');
    if (Number(trailer['lotCount']) !== lots.length)
      return fail(
        `the file trailer counts ${String(trailer['lotCount'])} lots, the file has ${lots.length}`,
      );
    if (Number(trailer['recordCount']) !== lines.length)
      return fail(
        `the file trailer counts ${String(trailer['recordCount'])} records, the file has ${lines.length}`,
      );
    return { ok: true, value: { header, lots, trailer } };
  } catch (error) {
    // decodeRecord refuses a date or value field that is not one: the file is malformed.
    if (error instanceof RangeError) return fail(error.message);
    throw error;
  }
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}

/** One slip's movement in a return file: a T segment and the U segment after it. */
export interface BoletoReturn {
  /** Stable per return file and slip movement: `<file sequence>:<lot>:<record number of T>`. */
  id: string;
  outcome: MovementOutcome;
  movementCode: string;
  movementDescription: string;
  /** As the bank returned it (trimmed). */
  nossoNumero: string;
  seuNumero: string;
  companyTag: string;
  dueDate: string | null;
  amountCents: number;
  /** T 214–223, described with the table of the movement: rejection reasons, the liquidation channel, the write-off cause. */
  reasons: ReasonCode[];
  /** The bank's fee for this movement (T 199–213). */
  feeCents: number;
  /** What the payer paid (U 78–92). */
  paidCents: number;
  /** What the bank credits us (U 93–107). */
  netCreditCents: number;
  /** Interest, fine and charges paid on top (U 18–32). */
  chargesCents: number;
  discountCents: number;
  rebateCents: number;
  otherExpensesCents: number;
  otherCreditsCents: number;
  /** The day of the movement: for a liquidação, the day the payer paid (U 138–145). */
  occurredOn: string | null;
  /** The day the money is credited to the account (U 146–153). */
  creditedOn: string | null;
}

export interface ReturnFile {
  bankCode: string;
  fileSequence: number;
  generatedDate: string | null;
  returns: BoletoReturn[];
}

const num = (value: DecodedValue): number => (typeof value === 'number' ? value : Number(value));
const str = (value: DecodedValue): string => (value === null ? '' : String(value));
const date = (value: DecodedValue): string | null =>
  typeof value === 'string' && value !== '' ? value : null;

/** A return (retorno) file's slips and what happened to each. */
export function readReturnFile(text: string): ReadResult<ReturnFile> {
  const read = readCnab240File(text);
  if (!read.ok) return read;
  const file = read.value;
  if (str(file.header['direction']) !== '2')
    return fail('not a return file (file header position 143 is not 2)');
  const fileSequence = num(file.header['fileSequence']);
  const returns: BoletoReturn[] = [];
  for (const lot of file.lots) {
    const details = lot.details;
    for (let i = 0; i < details.length; i++) {
      const t = details[i];
      if (t === undefined || t.segment !== 'T') continue;
      const u = details[i + 1];
      if (u === undefined || u.segment !== 'U')
        return fail(`line ${t.line}: segment T without its segment U`);
      const movementCode = str(t.fields['movementCode']);
      if (str(u.fields['movementCode']) !== movementCode)
        return fail(`line ${u.line}: segment U's movement differs from its T's`);
      const movement = RETURN_MOVEMENTS[movementCode];
      returns.push({
        id: `${fileSequence}:${str(lot.header['lot'])}:${str(t.fields['recordNumber'])}`,
        outcome: movement?.outcome ?? 'other',
        movementCode,
        movementDescription:
          movement?.description ?? 'movimento não documentado no padrão FEBRABAN',
        nossoNumero: str(t.fields['nossoNumero']).trim(),
        seuNumero: str(t.fields['seuNumero']).trim(),
        companyTag: str(t.fields['companyTag']).trim(),
        dueDate: date(t.fields['dueDate']),
        amountCents: num(t.fields['amountCents']),
        reasons: reasonsOf(movementCode, str(t.fields['reasons'])),
        feeCents: num(t.fields['feeCents']),
        paidCents: num(u.fields['paidCents']),
        netCreditCents: num(u.fields['netCreditCents']),
        chargesCents: num(u.fields['chargesCents']),
        discountCents: num(u.fields['discountCents']),
        rebateCents: num(u.fields['rebateCents']),
        otherExpensesCents: num(u.fields['otherExpensesCents']),
        otherCreditsCents: num(u.fields['otherCreditsCents']),
        occurredOn: date(u.fields['occurredDate']),
        creditedOn: date(u.fields['creditDate']),
      });
      i++;
    }
  }
  return {
    ok: true,
    value: {
      bankCode: str(file.header['bankCode']),
      fileSequence,
      generatedDate: date(file.header['generatedDate']),
      returns,
    },
  };
}
