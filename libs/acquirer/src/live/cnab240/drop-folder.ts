import { mkdir, open, readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

// Where remittance files are left for the bank and return files are picked up. In a deployment that is the
// bank's SFTP server (`SftpDropFolder`, sftp-drop-folder.ts) or a folder a transfer tool mirrors to it;
// here, a directory (`LocalDropFolder`). The exchange job sees only this interface.

export type DropFolderArchive = 'processed' | 'unreadable';

export interface DropFolder {
  /** Names of the files ready to be read, sorted; never a file still being written. */
  list(): Promise<string[]>;
  read(name: string): Promise<string>;
  /** Writes a whole file under `name`: a reader sees either no file or all of it; an older file of that name is replaced. */
  write(name: string, content: string): Promise<void>;
  /** Moves a read file out of the way, into the sub-folder `archive`, so that it is not read again. */
  archive(name: string, archive: DropFolderArchive): Promise<void>;
}

/**
 * The folder cannot be used now (a server that does not answer, refuses our key or is not the one
 * configured): the port's `unavailable`. The exchange stops where it is, and the next run starts over.
 */
export class DropFolderUnavailableError extends Error {
  readonly kind = 'unavailable' as const;
}

/** CNAB files are single-byte text: latin1 keeps one byte one position, even for a stray accented byte. */
export const CNAB_ENCODING = 'latin1';
/** A file being written is hidden under `.name.tmp` until complete; listings skip hidden names. */
export const TEMP_PREFIX = '.';
export const TEMP_SUFFIX = '.tmp';

export function assertPlainName(name: string): void {
  // Names come from a listing of the bank's folder: nothing in them may climb out of it.
  if (!/^[A-Za-z0-9][A-Za-z0-9_.\-]{0,200}$/.test(name))
    throw new RangeError(`not a plain file name: ${JSON.stringify(name)}`);
}

/** A drop folder on the local file system. Writes go to a hidden temporary file, synced, then renamed. */
export class LocalDropFolder implements DropFolder {
  constructor(readonly dir: string) {}

  async list(): Promise<string[]> {
    await mkdir(this.dir, { recursive: true });
    const entries = await readdir(this.dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && !e.name.startsWith(TEMP_PREFIX))
      .map((e) => e.name)
      .sort();
  }

  async read(name: string): Promise<string> {
    assertPlainName(name);
    return readFile(join(this.dir, name), CNAB_ENCODING);
  }

  async write(name: string, content: string): Promise<void> {
    assertPlainName(name);
    await mkdir(this.dir, { recursive: true });
    const temp = join(this.dir, TEMP_PREFIX + name + TEMP_SUFFIX);
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(content, CNAB_ENCODING);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, join(this.dir, name));
    await syncDir(this.dir);
  }

  async archive(name: string, archive: DropFolderArchive): Promise<void> {
    assertPlainName(name);
    const target = join(this.dir, archive);
    await mkdir(target, { recursive: true });
    await rename(join(this.dir, name), join(target, name));
    await syncDir(this.dir);
  }
}

/** Makes a rename durable: the directory entry is on disk once this returns. */
export async function syncDir(dir: string): Promise<void> {
  if (!(await stat(dir)).isDirectory()) return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
