// Run by `npm run build` after esbuild: the build transpiles only the sources changed since its
// last run into build/, so what it wrote for a source since deleted or renamed stays there; a test
// file left behind would still run. This removes every compiled file under build/ whose source
// is gone. build/web is the web bundle's (bundleWeb.ts) and is left alone.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const buildDir = join(root, 'build');

/** The source a compiled file came from: X.js and X.js.map from X.ts, a JSON file from itself. */
function sourceOf(compiled: string): string | undefined {
  const match = /^(.*)\.js(\.map)?$/.exec(compiled);
  if (match) return `${match[1]}.ts`;
  return compiled.endsWith('.json') ? compiled : undefined;
}

function prune(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    const source = sourceOf(relative(buildDir, path));
    if (source !== undefined && !existsSync(join(root, source))) rmSync(path);
  }
}

for (const entry of readdirSync(buildDir, { withFileTypes: true })) {
  if (entry.isDirectory() && entry.name !== 'web') prune(join(buildDir, entry.name));
}
