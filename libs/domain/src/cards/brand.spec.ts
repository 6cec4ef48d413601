import { detectBrand } from './brand';
import { luhnCheckDigit, luhnValid } from './luhn';

/** A Luhn-valid 16-digit number that starts with `prefix`, so the samples look like real cards. */
const cardFrom = (prefix: string, length = 16): string => {
  const body = prefix.padEnd(length - 1, '0');
  return body + luhnCheckDigit(body);
};

describe('detectBrand', () => {
  it('detects the contract §6 test cards', () => {
    expect(detectBrand('4111 1111 1111 1111')).toBe('visa');
    expect(detectBrand('5555 5555 5555 4444')).toBe('mastercard');
    expect(detectBrand('3782 822463 10005')).toBe('amex');
    for (const pan of [
      '4000000000000002',
      '4000000000009995',
      '4000000000000069',
      '4000000000000119',
    ])
      expect(detectBrand(pan)).toBe('visa');
  });

  it('detects published sample numbers of every brand', () => {
    const samples: Array<[string, string]> = [
      ['4012888888881881', 'visa'],
      ['5105105105105100', 'mastercard'],
      ['2223003122003222', 'mastercard'],
      ['371449635398431', 'amex'],
      ['6362970000457013', 'elo'],
      ['6062825624254001', 'hipercard'],
      ['36490102462661', 'diners'],
      ['30569309025904', 'diners'],
      ['6011111111111117', 'discover'],
      ['6011000990139424', 'discover'],
      ['3530111333300000', 'jcb'],
      ['3566002020360505', 'jcb'],
    ];
    for (const [pan, brand] of samples) {
      expect(luhnValid(pan)).toBe(true);
      expect([pan, detectBrand(pan)]).toEqual([pan, brand]);
    }
  });

  it('prefers Elo and Hipercard over the broad Visa, Diners and Discover ranges they sit inside', () => {
    const cases: Array<[string, string]> = [
      ['401178', 'elo'],
      ['401179', 'elo'],
      ['401177', 'visa'],
      ['401180', 'visa'],
      ['431274', 'elo'],
      ['438935', 'elo'],
      ['451416', 'elo'],
      ['457393', 'elo'],
      ['457631', 'elo'],
      ['457632', 'elo'],
      ['457633', 'visa'],
      ['504175', 'elo'],
      ['506699', 'elo'],
      ['506778', 'elo'],
      ['506779', 'unknown'],
      ['509000', 'elo'],
      ['509999', 'elo'],
      ['627780', 'elo'],
      ['636297', 'elo'],
      ['636368', 'elo'],
      ['650030', 'discover'],
      ['650031', 'elo'],
      ['650033', 'elo'],
      ['650034', 'discover'],
      ['650035', 'elo'],
      ['650051', 'elo'],
      ['650405', 'elo'],
      ['650439', 'elo'],
      ['650485', 'elo'],
      ['650538', 'elo'],
      ['650539', 'discover'],
      ['650541', 'elo'],
      ['650598', 'elo'],
      ['650700', 'elo'],
      ['650718', 'elo'],
      ['650719', 'discover'],
      ['650720', 'elo'],
      ['650727', 'elo'],
      ['650901', 'elo'],
      ['650978', 'elo'],
      ['650979', 'discover'],
      ['651652', 'elo'],
      ['651679', 'elo'],
      ['655000', 'elo'],
      ['655019', 'elo'],
      ['655020', 'discover'],
      ['655021', 'elo'],
      ['655058', 'elo'],
      ['655059', 'discover'],
      ['606282', 'hipercard'],
      ['384100', 'hipercard'],
      ['384199', 'hipercard'],
      ['384200', 'diners'],
      ['380000', 'diners'],
    ];
    for (const [bin, brand] of cases)
      expect([bin, detectBrand(cardFrom(bin))]).toEqual([bin, brand]);
  });

  it('follows the range edges of the broad brands', () => {
    const cases: Array<[string, string]> = [
      ['50', 'unknown'],
      ['51', 'mastercard'],
      ['55', 'mastercard'],
      ['56', 'unknown'],
      ['2220', 'unknown'],
      ['2221', 'mastercard'],
      ['2720', 'mastercard'],
      ['2721', 'unknown'],
      ['34', 'amex'],
      ['35', 'unknown'],
      ['37', 'amex'],
      ['300', 'diners'],
      ['305', 'diners'],
      ['306', 'unknown'],
      ['36', 'diners'],
      ['39', 'diners'],
      ['3527', 'unknown'],
      ['3528', 'jcb'],
      ['3589', 'jcb'],
      ['3590', 'unknown'],
      ['6011', 'discover'],
      ['6012', 'unknown'],
      ['643', 'unknown'],
      ['644', 'discover'],
      ['649', 'discover'],
      ['65', 'discover'],
      ['1', 'unknown'],
      ['9', 'unknown'],
    ];
    for (const [prefix, brand] of cases)
      expect([prefix, detectBrand(cardFrom(prefix))]).toEqual([prefix, brand]);
  });

  it('answers unknown for empty or non-digit input', () => {
    expect(detectBrand('')).toBe('unknown');
    expect(detectBrand('visa')).toBe('unknown');
    expect(detectBrand('4111.1111.1111.1111')).toBe('unknown');
  });
});
