import { bancoDoBrasilProfile, type BankProfile, type Cnab240Beneficiary } from './bank-profile';

// Test data shared by the CNAB 240 specs: a beneficiary at Banco do Brasil with a 7-digit convênio.

export const BENEFICIARY: Cnab240Beneficiary = {
  cnpj: '12345678000195',
  companyName: 'Pagamentos Exemplo Ltda',
  agency: '1234',
  agencyDv: '5',
  account: '98765',
  accountDv: 'X',
  agreement: '1234567',
  wallet: '17',
  walletVariation: '019',
};

export const PROFILE: BankProfile = bancoDoBrasilProfile(BENEFICIARY);
