// CRC16-CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0), the checksum of field 63 of a
// Pix BR Code. Computed over the UTF-8 bytes, which for the ASCII payloads we build are the characters.

/** The CRC of `payload` as 4 upper-case hex digits. */
export function crc16CcittFalse(payload: string | Uint8Array): string {
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}
