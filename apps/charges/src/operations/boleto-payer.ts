import type { BoletoPayer } from '@pgw/acquirer';
import type { Buyer } from '@pgw/charges-domain/charge-input';

// A boleto's payer is the charge's buyer: a bank registers the slip under their name, CPF/CNPJ and address
// (CNAB 240 segment Q). The API takes the state as the integrator writes it (2 to 80 characters); a bank
// wants the UF, so a state's name is read as its UF.

const UF_BY_NAME: Readonly<Record<string, string>> = {
  acre: 'AC',
  alagoas: 'AL',
  amapa: 'AP',
  amazonas: 'AM',
  bahia: 'BA',
  ceara: 'CE',
  'distrito federal': 'DF',
  'espirito santo': 'ES',
  goias: 'GO',
  maranhao: 'MA',
  'mato grosso': 'MT',
  'mato grosso do sul': 'MS',
  'minas gerais': 'MG',
  para: 'PA',
  paraiba: 'PB',
  parana: 'PR',
  pernambuco: 'PE',
  piaui: 'PI',
  'rio de janeiro': 'RJ',
  'rio grande do norte': 'RN',
  'rio grande do sul': 'RS',
  rondonia: 'RO',
  roraima: 'RR',
  'santa catarina': 'SC',
  'sao paulo': 'SP',
  sergipe: 'SE',
  tocantins: 'TO',
};

/** The UF of a state as written (`SP`, `sp`, `São Paulo`); anything else is passed on for the rail to refuse. */
export function ufOf(state: string): string {
  const trimmed = state.trim();
  if (/^[A-Za-z]{2}$/.test(trimmed)) return trimmed.toUpperCase();
  const key = trimmed
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\s+/g, ' ');
  return UF_BY_NAME[key] ?? trimmed;
}

/** The payer a boleto is registered under, from the buyer the charge was created with (`buyer_json`). */
export function boletoPayerOf(buyer: Buyer): BoletoPayer {
  const address = buyer.address;
  return {
    document: buyer.document,
    name: buyer.name,
    address: address.line_2 === null ? address.line_1 : `${address.line_1}, ${address.line_2}`,
    // The API has no bairro field; line_2 may be a complement as often as a district, so it stays in the address.
    district: null,
    postalCode: address.zip_code,
    city: address.city,
    state: ufOf(address.state),
  };
}
