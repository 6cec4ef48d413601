import type { Buyer } from '@pgw/charges-domain/charge-input';
import { boletoPayerOf, ufOf } from './boleto-payer';

const BUYER: Buyer = {
  name: 'Maria Oliveira',
  email: 'maria@example.com',
  phone: '21998765432',
  document: '52998224725',
  document_type: 'cpf',
  ip: null,
  address: {
    line_1: 'Rua do Ouvidor, 50',
    line_2: null,
    zip_code: '20040030',
    city: 'Rio de Janeiro',
    state: 'Rio de Janeiro',
    country: 'BR',
  },
};

describe('boletoPayerOf', () => {
  it("registers a boleto under the buyer's name, document and address, with the state as its UF", () => {
    // Proves the mapping from the API's buyer to what a bank's segment Q carries.
    expect(boletoPayerOf(BUYER)).toEqual({
      document: '52998224725',
      name: 'Maria Oliveira',
      address: 'Rua do Ouvidor, 50',
      district: null,
      postalCode: '20040030',
      city: 'Rio de Janeiro',
      state: 'RJ',
    });
    expect(
      boletoPayerOf({ ...BUYER, address: { ...BUYER.address, line_2: 'Sala 3' } }).address,
    ).toBe('Rua do Ouvidor, 50, Sala 3');
  });

  it('reads a UF, in any case, or a state name with or without accents; passes anything else on', () => {
    // Proves that integrators writing "São Paulo" or "sp" reach the bank as SP, and an unknown name is left for the rail to refuse.
    expect([
      ufOf('sp'),
      ufOf(' SP '),
      ufOf('São Paulo'),
      ufOf('SAO  PAULO'),
      ufOf('Mato Grosso do Sul'),
      ufOf('Distrito Federal'),
    ]).toEqual(['SP', 'SP', 'SP', 'SP', 'MS', 'DF']);
    expect(ufOf('Lisboa')).toBe('Lisboa');
  });
});
