// The data-directory backend: files under `<dataDir>/uploads/<key>`, each written to a temporary
// file, fsynced, renamed into place and its directory fsynced, so an acknowledged upload survives a
// crash and a reader never sees a partial file. The content type is kept beside the file
// (`<key>.type`), as S3 keeps it in the object's metadata.
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileStorage, StoredFile } from './storage.js';

const TYPE_SUFFIX = '.type';

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeDurably(path: string, write: (temporary: string) => Promise<void>): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await write(temporary);
    await fsyncPath(temporary);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export class LocalFileStorage implements FileStorage {
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = join(dataDir, 'uploads');
  }

  /** The file's path; keys are made by the server, but one that could leave the root is refused. */
  private pathOf(key: string): string {
    const segments = key.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..' || segment.includes('\\') || segment.includes('\0'))) {
      throw new Error(`invalid storage key '${key}'`);
    }
    return join(this.root, ...segments);
  }

  async put(key: string, body: Readable, contentType: string): Promise<number> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    await writeDurably(path, (temporary) => pipeline(body, createWriteStream(temporary, { flags: 'wx' })));
    await writeDurably(path + TYPE_SUFFIX, async (temporary) => {
      const handle = await open(temporary, 'wx');
      await handle.writeFile(contentType);
      await handle.close();
    });
    await fsyncPath(dirname(path));
    return (await stat(path)).size;
  }

  async open(key: string): Promise<StoredFile | undefined> {
    const path = this.pathOf(key);
    try {
      const [info, contentType] = await Promise.all([stat(path), readFile(path + TYPE_SUFFIX, 'utf8')]);
      return { stream: createReadStream(path), size: info.size, contentType };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await rm(path + TYPE_SUFFIX, { force: true });
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(
      () => true,
      () => false,
    );
  }
}
