import { credentialsPrefix } from '@pgw/acquirer';
import { CNAB240_TEST_BENEFICIARY as BENEFICIARY, type Pki } from '@pgw/acquirer/testing';

// The variables a deployment would give one live account, under its credentials name
// (LIVE_RAIL_<NAME>_…), for specs that start charges with live rails.

/** `vars` under the credentials name and the adapter's prefix: `pix_one`, `PIX_BCB_` → LIVE_RAIL_PIX_ONE_PIX_BCB_… */
function underCredentials(
  name: string,
  adapterPrefix: string,
  vars: Record<string, string | undefined>,
): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(vars).map(([k, v]) => [`${credentialsPrefix(name)}${adapterPrefix}${k}`, v]),
  );
}

/** A Banco do Brasil account (the CNAB 240 test beneficiary) with its drop folders and, when given, state file. */
export function bankAccountEnv(name: string, folders: Record<string, string>): NodeJS.ProcessEnv {
  return underCredentials(name, 'CNAB240_', {
    CNPJ: BENEFICIARY.cnpj,
    COMPANY_NAME: BENEFICIARY.companyName,
    AGENCY: BENEFICIARY.agency,
    AGENCY_DV: BENEFICIARY.agencyDv,
    ACCOUNT: BENEFICIARY.account,
    ACCOUNT_DV: BENEFICIARY.accountDv,
    AGREEMENT: BENEFICIARY.agreement,
    WALLET: BENEFICIARY.wallet,
    WALLET_VARIATION: BENEFICIARY.walletVariation,
    ...folders,
  });
}

/** A Pix account at the fake PSP, with our client certificate from `pki`; `extra`: its other variables (webhook trust). */
export function pixAccountEnv(
  name: string,
  psp: { baseUrl: string; tokenUrl: string; clientSecret: string; chave: string },
  pki: Pki,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv {
  return underCredentials(name, 'PIX_BCB_', {
    BASE_URL: psp.baseUrl,
    TOKEN_URL: psp.tokenUrl,
    CLIENT_ID: 'gateway-client',
    CLIENT_SECRET: psp.clientSecret,
    CERT_FILE: pki.client.certFile,
    KEY_FILE: pki.client.keyFile,
    CA_FILE: pki.caFile,
    CHAVE: psp.chave,
    MERCHANT_NAME: 'Loja Exemplo',
    MERCHANT_CITY: 'Sao Paulo',
    ...extra,
  });
}
