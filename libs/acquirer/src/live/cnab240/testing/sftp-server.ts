import { timingSafeEqual } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';
import { Server, utils, type Attributes, type Connection, type SFTPWrapper } from 'ssh2';
import { hostKeyFingerprint } from '../sftp-drop-folder';

// A bank's SFTP server for specs: ssh2's Server on 127.0.0.1 with an SFTP subsystem over a directory.
// It accepts one user with one public key, and answers the requests a client makes as an OpenSSH server
// does for protocol version 3 — RENAME refuses an existing target, no extensions offered — so the client
// is proven against the plain protocol. `dropConnectionOnNextWrite` loses the connection halfway through
// an upload, as a network failure or a crash would.

const { STATUS_CODE, flagsToString } = utils.sftp;

export interface SftpTestServer {
  port: number;
  /** The server's host key as `ssh-keygen -lf` prints it. */
  hostKeySha256: string;
  /** Authentication requests received (a client that refused the host key sends none). */
  readonly authentications: number;
  /** The next WRITE stores half its data, then the connection is dropped. */
  dropConnectionOnNextWrite(): void;
  close(): Promise<void>;
}

function attrsOf(stats: Stats): Attributes {
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    atime: Math.floor(stats.atimeMs / 1000),
    mtime: Math.floor(stats.mtimeMs / 1000),
  };
}

function statusOf(error: unknown): number {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return STATUS_CODE.NO_SUCH_FILE;
  if (code === 'EACCES' || code === 'EPERM') return STATUS_CODE.PERMISSION_DENIED;
  return STATUS_CODE.FAILURE;
}

type Handle = { kind: 'file'; fd: number } | { kind: 'dir'; path: string; listed: boolean };

function serveSftp(sftp: SFTPWrapper, root: string, onWrite: () => 'store' | 'drop'): void {
  const handles = new Map<string, Handle>();
  let nextHandle = 0;
  const local = (path: string): string => join(root, normalize(`/${path}`));
  const newHandle = (h: Handle): Buffer => {
    const id = Buffer.from(String(nextHandle++));
    handles.set(id.toString(), h);
    return id;
  };
  const attempt = (reqId: number, work: () => void): void => {
    try {
      work();
    } catch (error) {
      sftp.status(reqId, statusOf(error));
    }
  };

  sftp.on('OPEN', (reqId, filename, flags) =>
    attempt(reqId, () => {
      const mode = flagsToString(flags);
      if (mode === null) return sftp.status(reqId, STATUS_CODE.OP_UNSUPPORTED);
      sftp.handle(reqId, newHandle({ kind: 'file', fd: openSync(local(filename), mode) }));
    }),
  );
  sftp.on('WRITE', (reqId, handle, offset, data) =>
    attempt(reqId, () => {
      const h = handles.get(handle.toString());
      if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE);
      if (onWrite() === 'drop') {
        writeSync(h.fd, data, 0, Math.floor(data.length / 2), offset);
        closeSync(h.fd);
        handles.delete(handle.toString());
        sftp.emit('drop');
        return;
      }
      writeSync(h.fd, data, 0, data.length, offset);
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('READ', (reqId, handle, offset, length) =>
    attempt(reqId, () => {
      const h = handles.get(handle.toString());
      if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE);
      const buffer = Buffer.alloc(length);
      const read = readSync(h.fd, buffer, 0, length, offset);
      if (read === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.data(reqId, buffer.subarray(0, read));
    }),
  );
  sftp.on('FSTAT', (reqId, handle) =>
    attempt(reqId, () => {
      const h = handles.get(handle.toString());
      if (h?.kind !== 'file') return sftp.status(reqId, STATUS_CODE.FAILURE);
      sftp.attrs(reqId, attrsOf(fstatSync(h.fd)));
    }),
  );
  sftp.on('CLOSE', (reqId, handle) =>
    attempt(reqId, () => {
      const h = handles.get(handle.toString());
      if (h === undefined) return sftp.status(reqId, STATUS_CODE.FAILURE);
      handles.delete(handle.toString());
      if (h.kind === 'file') closeSync(h.fd);
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('OPENDIR', (reqId, path) =>
    attempt(reqId, () => {
      if (!statSync(local(path)).isDirectory()) return sftp.status(reqId, STATUS_CODE.FAILURE);
      sftp.handle(reqId, newHandle({ kind: 'dir', path: local(path), listed: false }));
    }),
  );
  sftp.on('READDIR', (reqId, handle) =>
    attempt(reqId, () => {
      const h = handles.get(handle.toString());
      if (h?.kind !== 'dir') return sftp.status(reqId, STATUS_CODE.FAILURE);
      if (h.listed) return sftp.status(reqId, STATUS_CODE.EOF);
      h.listed = true;
      const names = readdirSync(h.path).map((filename) => ({
        filename,
        longname: filename,
        attrs: attrsOf(statSync(join(h.path, filename))),
      }));
      if (names.length === 0) return sftp.status(reqId, STATUS_CODE.EOF);
      sftp.name(reqId, names);
    }),
  );
  const stat = (reqId: number, path: string): void =>
    attempt(reqId, () => sftp.attrs(reqId, attrsOf(statSync(local(path)))));
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('REMOVE', (reqId, path) =>
    attempt(reqId, () => {
      unlinkSync(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('MKDIR', (reqId, path) =>
    attempt(reqId, () => {
      mkdirSync(local(path));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('RENAME', (reqId, from, to) =>
    attempt(reqId, () => {
      // SFTP version 3 as OpenSSH serves it: a rename never replaces a file.
      if (existsSync(local(to))) return sftp.status(reqId, STATUS_CODE.FAILURE);
      renameSync(local(from), local(to));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('REALPATH', (reqId, path) =>
    sftp.name(reqId, [{ filename: normalize(`/${path}`), longname: '', attrs: {} as Attributes }]),
  );
}

/** A generated key pair, in OpenSSH format. */
export interface TestKeyPair {
  private: string;
  public: string;
}

/**
 * A fresh ed25519 key pair that ssh2 reads back. Its generateKeyPairSync drops the leading zero bytes of a
 * public key that begins with one (about 1 key in 256), and parseKey then refuses the key (mscdex/ssh2#1390):
 * a test that used such a key failed at random.
 */
export function readableKeyPair(): TestKeyPair {
  for (let tries = 0; tries < 16; tries += 1) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (
      !(utils.parseKey(pair.public) instanceof Error) &&
      !(utils.parseKey(pair.private) instanceof Error)
    )
      return pair;
  }
  throw new Error('ssh2 made no readable ed25519 key pair in 16 tries');
}

/**
 * Starts a server that serves `root` to `username` authenticated by `clientPublicKey` (OpenSSH format),
 * with a fresh ed25519 host key.
 */
export async function startSftpTestServer(options: {
  root: string;
  username: string;
  clientPublicKey: string;
}): Promise<SftpTestServer> {
  const hostKey = readableKeyPair();
  const parsedHost = utils.parseKey(hostKey.public);
  const allowed = utils.parseKey(options.clientPublicKey);
  if (parsedHost instanceof Error || allowed instanceof Error)
    throw new Error('unreadable test key');
  let authentications = 0;
  let dropNext = false;
  const connections = new Set<Connection>();
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    connections.add(client);
    client.on('close', () => connections.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      authentications++;
      if (
        ctx.method !== 'publickey' ||
        ctx.username !== options.username ||
        ctx.key.algo !== allowed.type ||
        ctx.key.data.length !== allowed.getPublicSSH().length ||
        !timingSafeEqual(ctx.key.data, allowed.getPublicSSH())
      )
        return ctx.reject(['publickey']);
      if (ctx.signature === undefined || ctx.blob === undefined) return ctx.accept();
      if (allowed.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true) return ctx.accept();
      return ctx.reject(['publickey']);
    });
    client.on('ready', () =>
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          sftp.on('drop', () => client.end());
          serveSftp(sftp, options.root, () => {
            if (!dropNext) return 'store';
            dropNext = false;
            return 'drop';
          });
        });
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hostKeySha256: hostKeyFingerprint(parsedHost.getPublicSSH()),
    get authentications() {
      return authentications;
    },
    dropConnectionOnNextWrite() {
      dropNext = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.end();
        server.close(() => resolve());
      }),
  };
}
