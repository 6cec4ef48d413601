// EMV TLV as used by the Pix BR Code: 2-digit id, 2-digit decimal length, value. Lengths count bytes of the
// UTF-8 encoding, which is what readers do (Buffer.byteLength), so parsing walks bytes, not characters.

export interface TlvField {
  id: string;
  value: string;
}

export type TlvParseResult =
  { ok: true; fields: TlvField[] } | { ok: false; reason: string; offset: number };

/** Splits a TLV string into its top-level fields; a template's value can be parsed again for its subfields. */
export function parseTlv(payload: string): TlvParseResult {
  const bytes = Buffer.from(payload, 'utf8');
  const fields: TlvField[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) return { ok: false, reason: 'truncated header', offset };
    const header = bytes.toString('latin1', offset, offset + 4);
    if (!/^\d{4}$/.test(header))
      return { ok: false, reason: 'id and length must be 4 digits', offset };
    const length = Number(header.slice(2));
    const start = offset + 4;
    if (start + length > bytes.length)
      return { ok: false, reason: `field ${header.slice(0, 2)} runs past the end`, offset };
    fields.push({ id: header.slice(0, 2), value: bytes.toString('utf8', start, start + length) });
    offset = start + length;
  }
  return { ok: true, fields };
}

/** One TLV field: id + 2-digit byte length + value. Throws when the value does not fit in 99 bytes. */
export function tlv(id: string, value: string): string {
  const length = Buffer.byteLength(value, 'utf8');
  if (!/^\d{2}$/.test(id)) throw new RangeError(`TLV id must be 2 digits, got ${id}`);
  if (length > 99) throw new RangeError(`TLV field ${id} is ${length} bytes, over the limit of 99`);
  return id + String(length).padStart(2, '0') + value;
}
