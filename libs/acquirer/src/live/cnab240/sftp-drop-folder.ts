import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { Redacted } from '@pgw/domain';
import { Client, type SFTPWrapper, type Stats } from 'ssh2';
import {
  assertPlainName,
  CNAB_ENCODING,
  DropFolderUnavailableError,
  TEMP_PREFIX,
  TEMP_SUFFIX,
  type DropFolder,
  type DropFolderArchive,
} from './drop-folder';

// A drop folder on the bank's SFTP server: the same four operations as the local directory, each over
// one SSH connection opened for it and closed after (the job runs a few times a day; a kept connection
// would only have to be watched). The server is known in advance: its host key must hash to the
// configured fingerprint, or the connection is dropped before our key is offered. Every failure —
// network, host key, credentials, a server that refuses an operation — is a DropFolderUnavailableError:
// the exchange stops and the next run tries again, as with any provider that cannot be reached.

/** Where a folder is and how to reach it; parsed from `sftp://user@host:port/path`. */
export interface SftpLocation {
  host: string;
  port: number;
  username: string;
  /** Absolute on the server, without a trailing slash. */
  path: string;
}

export interface SftpDropFolderOptions extends SftpLocation {
  /** The OpenSSH or PEM private key our user authenticates with. */
  privateKey: Redacted<Buffer>;
  /** The server's host key as `ssh-keygen -lf` prints it: `SHA256:` and unpadded base64. */
  hostKeySha256: string;
  /** The deadline of one operation, connection and handshake included. */
  timeoutMs: number;
}

const SFTP_PORT_DEFAULT = 22;
const FINGERPRINT_PATTERN = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** Reads `sftp://user@host[:port]/path`; a RangeError names what is wrong (the URL holds no secret). */
export function parseSftpUrl(raw: string): SftpLocation {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RangeError('must be an sftp://user@host:port/path URL');
  }
  if (url.protocol !== 'sftp:') throw new RangeError('must be an sftp:// URL');
  if (url.password !== '')
    throw new RangeError('must not carry a password: the key file authenticates');
  if (url.username === '' || url.hostname === '')
    throw new RangeError('must name the user and the host (sftp://user@host/path)');
  const path = decodeURIComponent(url.pathname).replace(/\/+$/, '');
  if (path === '' || path.split('/').includes('..'))
    throw new RangeError('must name a folder below the root, without ..');
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? SFTP_PORT_DEFAULT : Number(url.port),
    username: decodeURIComponent(url.username),
    path,
  };
}

/** The fingerprint OpenSSH prints for a host key blob (the key as the server sends it). */
export function hostKeyFingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** An SFTP operation as a promise. */
function call<T>(
  run: (done: (error: Error | null | undefined, value: T) => void) => void,
): Promise<T> {
  return new Promise((resolve, reject) =>
    run((error, value) => (error ? reject(error) : resolve(value))),
  );
}

/**
 * An OpenSSH extension when the server offers it: ssh2 throws at once when it does not. Returns false
 * then, so the caller falls back to the plain protocol.
 */
async function whenSupported(
  run: (done: (error: Error | null | undefined) => void) => void,
): Promise<boolean> {
  let started = false;
  await call<void>((done) => {
    try {
      run((error) => done(error, undefined));
      started = true;
    } catch {
      done(null, undefined);
    }
  });
  return started;
}

export class SftpDropFolder implements DropFolder {
  constructor(private readonly options: SftpDropFolderOptions) {
    if (!FINGERPRINT_PATTERN.test(options.hostKeySha256))
      throw new RangeError('hostKeySha256 must be SHA256: and 43 characters of base64');
    if (!Number.isSafeInteger(options.timeoutMs) || options.timeoutMs < 1)
      throw new RangeError('timeoutMs must be a positive integer');
  }

  /** `sftp://user@host:port/path`, for messages and the operator's view: no secret in it. */
  get location(): string {
    const { username, host, port, path } = this.options;
    return `sftp://${username}@${host}:${port}${path}`;
  }

  list(): Promise<string[]> {
    return this.session('list', async (sftp) => {
      const entries = await call<Array<{ filename: string; attrs: Stats }>>((done) =>
        sftp.readdir(this.options.path, done),
      );
      return entries
        .filter((e) => e.attrs.isFile() && !e.filename.startsWith(TEMP_PREFIX))
        .map((e) => e.filename)
        .sort();
    });
  }

  read(name: string): Promise<string> {
    assertPlainName(name);
    return this.session('read', async (sftp) => {
      const bytes = await call<Buffer>((done) => sftp.readFile(this.pathOf(name), done));
      return bytes.toString(CNAB_ENCODING);
    });
  }

  write(name: string, content: string): Promise<void> {
    assertPlainName(name);
    return this.session('write', async (sftp) => {
      // Written whole under a hidden name first, then renamed: the bank never lists a file still being
      // written, and a connection lost midway leaves only the hidden one, which the next write replaces.
      const temp = this.pathOf(TEMP_PREFIX + name + TEMP_SUFFIX);
      const bytes = Buffer.from(content, CNAB_ENCODING);
      const handle = await call<Buffer>((done) => sftp.open(temp, 'w', done));
      try {
        await call<void>((done) =>
          sftp.write(handle, bytes, 0, bytes.length, 0, (error) => done(error, undefined)),
        );
        await whenSupported((done) => sftp.ext_openssh_fsync(handle, done));
      } finally {
        await call<void>((done) => sftp.close(handle, (error) => done(error, undefined)));
      }
      await this.replace(sftp, temp, this.pathOf(name));
    });
  }

  archive(name: string, archive: DropFolderArchive): Promise<void> {
    assertPlainName(name);
    return this.session('archive', async (sftp) => {
      const folder = posix.join(this.options.path, archive);
      if ((await this.statOf(sftp, folder)) === null)
        await call<void>((done) => sftp.mkdir(folder, (error) => done(error, undefined)));
      await this.replace(sftp, this.pathOf(name), posix.join(folder, name));
    });
  }

  private pathOf(name: string): string {
    return posix.join(this.options.path, name);
  }

  private async statOf(sftp: SFTPWrapper, path: string): Promise<Stats | null> {
    try {
      return await call<Stats>((done) => sftp.stat(path, done));
    } catch {
      return null;
    }
  }

  /**
   * Renames `from` over `to`. OpenSSH's posix-rename replaces atomically; the protocol's own RENAME
   * refuses an existing target, so without the extension the old file is removed first — a reader then
   * sees no file for a moment, never a part of one.
   */
  private async replace(sftp: SFTPWrapper, from: string, to: string): Promise<void> {
    if (await whenSupported((done) => sftp.ext_openssh_rename(from, to, done))) return;
    if ((await this.statOf(sftp, to)) !== null)
      await call<void>((done) => sftp.unlink(to, (error) => done(error, undefined)));
    await call<void>((done) => sftp.rename(from, to, (error) => done(error, undefined)));
  }

  /** One connection for one operation, closed after it; every failure is the folder being unavailable. */
  private async session<T>(operation: string, work: (sftp: SFTPWrapper) => Promise<T>): Promise<T> {
    const { host, port, username, privateKey, hostKeySha256, timeoutMs } = this.options;
    const client = new Client();
    let presented: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    const failure = (reason: string): DropFolderUnavailableError =>
      new DropFolderUnavailableError(`${operation} at ${this.location}: ${reason}`);
    try {
      // Every error and the close of the connection, from the first packet to the end of the work: ssh2
      // emits them as events, which would end the process with no listener.
      const broken = new Promise<never>((_, reject) => {
        client.on('error', reject);
        client.on('close', () => reject(new Error('the connection closed')));
      });
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      // Both lose the race below in a successful operation and reject later: handled, not unhandled.
      broken.catch(() => undefined);
      deadline.catch(() => undefined);
      const connected = new Promise<SFTPWrapper>((resolve, reject) =>
        client.once('ready', () =>
          client.sftp((error, sftp) => {
            if (error) return reject(error);
            sftp.on('error', reject);
            resolve(sftp);
          }),
        ),
      );
      client.connect({
        host,
        port,
        username,
        privateKey: privateKey.expose(),
        readyTimeout: timeoutMs,
        // Checked before authentication: an unknown server never sees our key's signature.
        hostVerifier: (key: Buffer) => {
          presented = hostKeyFingerprint(key);
          return presented === hostKeySha256;
        },
      });
      const sftp = await Promise.race([connected, broken, deadline]);
      return await Promise.race([work(sftp), broken, deadline]);
    } catch (error) {
      if (presented !== null && presented !== hostKeySha256)
        throw failure(
          `the server presented host key ${presented}, not the configured one: refused`,
        );
      // ssh2's messages name the step that failed (authentication, a status of the server); never a key.
      throw failure(error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
      client.end();
    }
  }
}
