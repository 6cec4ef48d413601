// `pgw`: the sandbox CLI of the payment gateway (issue 21 item 4), over @pgw/sdk. Exit code 0 on success,
// 1 on any failure, printed on stderr: the API's message with its type, code and request_id, or what was
// wrong with the command line followed by the command's usage.
import { GatewayError } from '@pgw/sdk';
import { UsageError, type Command, type Io } from './cli';
import { charges } from './commands/charges';
import { listen } from './commands/listen';
import { login } from './commands/login';
import { logs } from './commands/logs';
import {
  anticipations,
  balance,
  chargebacks,
  receivables,
  settlements,
} from './commands/resources';
import { trigger } from './commands/trigger';

const COMMANDS: Readonly<Record<string, Command>> = {
  login,
  charges,
  balance,
  receivables,
  settlements,
  chargebacks,
  anticipations,
  trigger,
  listen,
  logs,
};

const HELP = `pgw: the payment gateway's sandbox from the command line

Usage: pgw <command> [action] [flags]     (pgw <command> --help for each)

${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(14)} ${command.summary}`)
  .join('\n')}

Start the sandbox with npm start; then pgw login --api-key <its Demo key> --admin-token <its ADMIN_TOKEN> --tenant <its Demo tenant>.
`;

/** What a failure prints: never a stack trace for an operating error. */
export function describeError(error: unknown): string {
  if (error instanceof GatewayError) {
    const where = [
      error.status === null ? null : `HTTP ${error.status}`,
      `${error.type}/${error.code}`,
      error.param === null ? null : `param ${error.param}`,
      error.requestId === null ? null : `request_id ${error.requestId}`,
    ];
    return `error: ${error.message} (${where.filter((part) => part !== null).join(', ')})\n`;
  }
  return `error: ${error instanceof Error ? error.message : String(error)}\n`;
}

export async function main(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? 1 : 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    io.err(`error: unknown command ${name}\n\n${HELP}`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`${command.usage}\n`);
    return 0;
  }
  try {
    await command.run(rest, io);
    return 0;
  } catch (error) {
    io.err(describeError(error));
    if (error instanceof UsageError) io.err(`\n${command.usage}\n`);
    return 1;
  }
}

/** bin/pgw.js: the process's arguments and streams; exits once the command is done (a keep-alive socket to the gateway must not hold the terminal). */
export function runFromProcess(): void {
  void main(process.argv.slice(2), {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
  }).then((code) => process.exit(code));
}
