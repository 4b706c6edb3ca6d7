// Bundles the web client (src/web) into build/web with esbuild: run by `npm run build` after tsc.
// Each page's script and style get content-hashed names under build/web/static, and its HTML
// (build/web/<page>.html) names them; the server serves them all (src/http/webAssets.ts).
// `npm run build` runs on every `npm test`: when no file the last bundle was made from has changed
// (build/web/inputs.json records each one's hash), the bundle is left as it is.
import { createHash } from 'node:crypto';
import { build, type Metafile } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEB_DIR, type WebPage } from '../http/webAssets.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const pages: Record<WebPage, { entry: string; title: string }> = {
  index: { entry: 'src/web/app/main.tsx', title: 'Parley' },
  status: { entry: 'src/web/status/main.tsx', title: 'Parley — server status' },
};

/** The output files esbuild wrote for an entry point: its script and, when it imports any, its style. */
function outputsOf(metafile: Metafile, entry: string): { script: string; style?: string } {
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint !== entry) continue;
    const style = output.cssBundle && basename(output.cssBundle);
    return { script: basename(path), ...(style ? { style } : {}) };
  }
  throw new Error(`esbuild wrote nothing for ${entry}`);
}

const html = (title: string, files: { script: string; style?: string }) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
${files.style ? `<link rel="stylesheet" href="/static/${files.style}">\n` : ''}<script type="module" src="/static/${files.script}"></script>
</head>
<body>
<div id="app"></div>
</body>
</html>
`;

const inputsFile = join(WEB_DIR, 'inputs.json');

/** Each file a bundle depends on, by path from the root, with its content's hash: the sources
 * esbuild read, this script (its options and pages) and the lockfile (esbuild's and the
 * packages' versions). A new file can only change the bundle through an import, an edit of one of these. */
function hashesOf(inputs: string[]): Record<string, string> {
  const files = [...inputs, relative(root, fileURLToPath(import.meta.url)), 'package-lock.json'];
  return Object.fromEntries(files.map((file) => [file, existsSync(join(root, file)) ? createHash('sha256').update(readFileSync(join(root, file))).digest('hex') : 'missing']));
}

function unchanged(): boolean {
  if (!existsSync(inputsFile) || !Object.keys(pages).every((name) => existsSync(join(WEB_DIR, `${name}.html`)))) return false;
  const recorded = JSON.parse(readFileSync(inputsFile, 'utf8')) as Record<string, string>;
  const now = hashesOf(Object.keys(recorded));
  return Object.entries(recorded).every(([file, hash]) => now[file] === hash);
}

if (unchanged()) process.exit(0);
// Names carry content hashes: the last bundle's files go, or the server would serve them all.
rmSync(WEB_DIR, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(pages).map(([name, page]) => [name === 'index' ? 'app' : name, page.entry])),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: 'linked',
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  outdir: join(WEB_DIR, 'static'),
  tsconfig: 'src/web/tsconfig.json',
  metafile: true,
  logLevel: 'warning',
});
mkdirSync(WEB_DIR, { recursive: true });
for (const [name, page] of Object.entries(pages)) writeFileSync(join(WEB_DIR, `${name}.html`), html(page.title, outputsOf(result.metafile, page.entry)));
writeFileSync(inputsFile, JSON.stringify(hashesOf(Object.keys(result.metafile.inputs))));
