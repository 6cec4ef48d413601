// Card brand from the leading digits (BIN/IIN). Order matters: Elo and Hipercard issue inside ranges that
// look like Visa (4…), Diners (38…) and Discover (65…), so their exact lists are checked first and the
// broad ranges catch what is left.

export type CardBrand =
  'visa' | 'mastercard' | 'amex' | 'elo' | 'hipercard' | 'diners' | 'discover' | 'jcb' | 'unknown';

interface BinRange {
  brand: Exclude<CardBrand, 'unknown'>;
  /** Inclusive bounds of the leading digits; both have the same length. */
  low: string;
  high: string;
}

const range = (brand: BinRange['brand'], low: string, high: string = low): BinRange => ({
  brand,
  low,
  high,
});

// Elo's published BIN list (the same table card-type libraries such as braintree/credit-card-type carry).
// Each entry a BIN or an inclusive range of them (`low-high`).
const ELO: BinRange[] = [
  '401178',
  '401179',
  '431274',
  '438935',
  '451416',
  '457393',
  '457631',
  '457632',
  '504175',
  '627780',
  '636297',
  '636368',
  '506699-506778',
  '509000-509999',
  '650031-650033',
  '650035-650051',
  '650405-650439',
  '650485-650538',
  '650541-650598',
  '650700-650718',
  '650720-650727',
  '650901-650978',
  '651652-651679',
  '655000-655019',
  '655021-655058',
].map((bins) => {
  const [low, high] = bins.split('-');
  return range('elo', low!, high);
});

const BIN_RANGES: readonly BinRange[] = [
  ...ELO,
  range('hipercard', '606282'),
  range('hipercard', '3841'),
  range('amex', '34'),
  range('amex', '37'),
  range('mastercard', '51', '55'),
  range('mastercard', '2221', '2720'),
  range('diners', '300', '305'),
  range('diners', '36'),
  range('diners', '38', '39'),
  range('jcb', '3528', '3589'),
  range('discover', '6011'),
  range('discover', '644', '649'),
  range('discover', '65'),
  range('visa', '4'),
];

/**
 * The brand of a card number, or 'unknown'. Spaces and hyphens are ignored; a bare BIN is enough, since
 * only leading digits are compared (length and Luhn are checked elsewhere).
 */
export function detectBrand(pan: string): CardBrand {
  const digits = pan.replace(/[ -]/g, '');
  if (!/^\d+$/.test(digits)) return 'unknown';
  for (const r of BIN_RANGES) {
    if (digits.length < r.low.length) continue;
    // Same-length digit strings compare like the numbers they spell.
    const prefix = digits.slice(0, r.low.length);
    if (prefix >= r.low && prefix <= r.high) return r.brand;
  }
  return 'unknown';
}
