import { Gateway, PermissionError } from '@pgw/sdk';
import { assertTestKey, parse, UsageError, type Command, type Io } from '../cli';
import {
  configPath,
  DEFAULT_BASE_URL,
  maskSecret,
  readConfig,
  writeConfig,
  type Config,
} from '../config';

const OPTIONS = {
  'api-key': { type: 'string' },
  'base-url': { type: 'string' },
  'admin-token': { type: 'string' },
  tenant: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const login: Command = {
  summary: 'keep a test key (and the operator token) in the config file',
  usage: `pgw login --api-key sk_test_… [--base-url URL] [--admin-token TOKEN] [--tenant ten_…]

Checks the key against the gateway and keeps it in $XDG_CONFIG_HOME/pgw/config.json (or
~/.config/pgw/config.json), readable by you only (0600). Only test keys: sk_live_ is refused.
--admin-token and --tenant (both printed by npm start) are what pgw trigger, listen and logs need.
Fields not given keep their saved value.

  --api-key sk_test_…     the key to keep
  --base-url URL          the gateway (default ${DEFAULT_BASE_URL})
  --admin-token TOKEN     the operator token (ADMIN_TOKEN)
  --tenant ten_…          the key's tenant
  -h, --help              this help`,

  async run(argv: string[], io: Io) {
    const { values } = parse(argv, OPTIONS, 0);
    const path = configPath(io.env);
    const saved = readConfig(path);
    const apiKey = values['api-key'] ?? saved.api_key;
    if (apiKey === undefined)
      throw new UsageError('--api-key is required (the "Demo key" npm start prints)');
    assertTestKey(apiKey);
    const baseUrl = values['base-url'] ?? saved.base_url ?? DEFAULT_BASE_URL;
    if (values.tenant !== undefined && !/^ten_[A-Za-z0-9]+$/.test(values.tenant))
      throw new UsageError(`--tenant is a tenant id (ten_…), not ${values.tenant}`);

    // A balance, or a 403 (a key without balance:read or without a seller), proves the key; a 401 or no answer does not.
    try {
      await new Gateway({ apiKey, baseUrl, retry: { retriesMax: 0 } }).balance.retrieve();
    } catch (error) {
      if (!(error instanceof PermissionError)) throw error;
    }

    const config: Config = { ...saved, api_key: apiKey, base_url: baseUrl };
    if (values['admin-token'] !== undefined) config.admin_token = values['admin-token'];
    if (values.tenant !== undefined) config.tenant_id = values.tenant;
    writeConfig(path, config);
    io.out(
      `Logged in with ${maskSecret(apiKey)} at ${baseUrl}${config.admin_token === undefined ? '' : `, admin token ${maskSecret(config.admin_token)}`}${config.tenant_id === undefined ? '' : `, tenant ${config.tenant_id}`}.\nSaved to ${path} (mode 0600).\n`,
    );
  },
};
