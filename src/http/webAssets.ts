// The web client's files (build/web, written by `npm run build`): its pages and the scripts and
// styles they name, whose names carry their content's hash. Read once, on the first request, and
// served from memory: pages are asked for again each time, hashed files kept for good.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileBody, IMMUTABLE, REVALIDATE } from './route.js';

/** build/web, beside build/src where this module runs from. */
export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/** The pages of the bundle: the chat app and the operator's status page. */
export type WebPage = 'index' | 'status';

export interface WebAssets {
  page(name: WebPage): FileBody | undefined;
  /** A file of build/web/static by name. */
  asset(fileName: string): FileBody | undefined;
}

function load(dir: string): WebAssets {
  const read = (path: string, cacheControl: string) => new FileBody(contentTypes[extname(path)] ?? 'application/octet-stream', readFileSync(path), cacheControl);
  const pages = new Map<string, FileBody>();
  const assets = new Map<string, FileBody>();
  // Not built (tsc alone): no pages, and every request for one is a 404.
  if (existsSync(dir)) {
    for (const name of ['index', 'status'] as const) pages.set(name, read(join(dir, `${name}.html`), REVALIDATE));
    const staticDir = join(dir, 'static');
    for (const file of readdirSync(staticDir)) assets.set(file, read(join(staticDir, file), IMMUTABLE));
  }
  return { page: (name) => pages.get(name), asset: (fileName) => assets.get(fileName) };
}

let loaded: WebAssets | undefined;

/** The bundle, read on first use. */
export const webAssets = (): WebAssets => (loaded ??= load(WEB_DIR));
