// Code health the review asked for, kept by the default test run: no function of src/ longer than
// 60 lines unless it reads better whole (the list below says why), and no type escape (`any`,
// `as never`, a suppressed compiler error). Each file's findings are kept in build/ by its content's
// hash, with this test's own and TypeScript's version: `npm test` parses (and loads TypeScript) only
// for the files changed since its last run.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Ts from 'typescript';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The compiler's API, loaded only when a file must be parsed. */
type TypeScript = typeof Ts;
const MAX_LINES = 60;

/** Functions longer than MAX_LINES that read better whole, by file and name, with why. */
const readsBetterWhole: Record<string, string> = {
  'src/cli/manage.ts main': "the management CLI's commands: one switch, a case per command, read top to bottom",
  'src/store/store.ts constructor': "opens each table of the key layout, a line each, where the store's readonly fields must be assigned, then runs the format's migrations",
  // The web client's components: most of each is its markup, one JSX tree read as the page shows it.
  'src/web/app/ui/Compose.tsx Compose': 'the compose box: its markup, one JSX tree',
  'src/web/app/ui/MessageList.tsx MessageList': 'the message list: its markup, one JSX tree',
  'src/web/app/ui/MessageRow.tsx render': 'a message row: its markup, one JSX tree',
  'src/web/status/StatusPage.tsx StatusPage': "the status page: its markup, one JSX tree of the page's sections",
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') || path.endsWith('.tsx') ? [path] : [];
  });
}

/** A function's name as the list above gives it: its own, its variable's or property's. */
function nameOf(ts: TypeScript, node: Ts.FunctionLikeDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent) && ts.isPropertyAssignment(parent.parent)) return parent.parent.name.getText();
  return '(anonymous)';
}

interface Finding {
  /** Every function longer than MAX_LINES: "file name" → where and how long. */
  long: Map<string, string>;
  escapes: string[];
}

/** One file's findings: its functions longer than MAX_LINES ("file name" and where) and its escapes. */
interface FileFinding {
  long: [string, string][];
  escapes: string[];
}

function scanFile(ts: TypeScript, path: string, file: string, text: string): FileFinding {
  const finding: FileFinding = { long: [], escapes: [] };
  if (/@ts-(ignore|expect-error|nocheck)/.test(text)) finding.escapes.push(`${file}: a suppressed compiler error`);
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const line = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: Ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart()) + 1;
      const key = `${file} ${nameOf(ts, node as Ts.FunctionLikeDeclaration)}`;
      if (lines > MAX_LINES) finding.long.push([key, `${key} (line ${line(node.getStart())}): ${lines} lines`]);
    }
    if (node.kind === ts.SyntaxKind.AnyKeyword) finding.escapes.push(`${file}:${line(node.getStart())}: any`);
    if (ts.isAsExpression(node) && node.type.kind === ts.SyntaxKind.NeverKeyword) finding.escapes.push(`${file}:${line(node.getStart())}: as never`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return finding;
}

const cacheFile = fileURLToPath(new URL('../.codeHealth.json', import.meta.url));
const hash = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
/** What every cached finding depends on besides its file: this test and the parser. */
const scanner = hash(readFileSync(fileURLToPath(import.meta.url)) + readFileSync(createRequire(import.meta.url).resolve('typescript/package.json'), 'utf8'));

async function scan(): Promise<Finding> {
  const cached = existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as { scanner: string; files: Record<string, FileFinding & { hash: string }> }) : undefined;
  const previous = cached?.scanner === scanner ? cached.files : {};
  const files: Record<string, FileFinding & { hash: string }> = {};
  let typescript: TypeScript | undefined;
  for (const path of sources(join(root, 'src'))) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    const textHash = hash(text);
    const known = previous[file];
    if (known?.hash === textHash) files[file] = known;
    else files[file] = { hash: textHash, ...scanFile((typescript ??= (await import('typescript')).default), path, file, text) };
  }
  writeFileSync(cacheFile, JSON.stringify({ scanner, files }));
  const all = Object.values(files);
  return { long: new Map(all.flatMap((found) => found.long)), escapes: all.flatMap((found) => found.escapes) };
}

const finding = await scan();

test(`no function of src/ is longer than ${MAX_LINES} lines, unless it reads better whole`, () => {
  assert.equal([...finding.long].filter(([key]) => !Object.hasOwn(readsBetterWhole, key)).map(([, where]) => where), []);
});

test('src/ hides no type: no any, no as never, no suppressed compiler error', () => {
  assert.equal(finding.escapes, []);
});

test('every function listed as reading better whole is still that long (the list stays true)', () => {
  assert.equal(Object.keys(readsBetterWhole).filter((key) => !finding.long.has(key)), []);
});

test.run();
