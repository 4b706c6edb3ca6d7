// The parts of docs/ that are generated from the code, so they cannot drift: each is written
// between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` by `npm run docs`, and
// test/docs.test.ts fails when a page's block differs from what the code makes now.
import { readFileSync } from 'node:fs';
import { routed, unservedOperations } from '../api/coverage.js';
import { routes } from '../api/routes.js';
import { integrations } from '../integrations/index.js';
import { benchResults } from './benchResults.js';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** Every incoming-webhook integration: its URL, the header naming its events, its events, its own
 * URL options. */
function integrationTable(): string {
  const rows = [...integrations.values()]
    .sort((a, b) => a.displayName.localeCompare(b.displayName))
    .map((integration) => {
      const events = Object.keys(integration.events);
      return `| ${cell(integration.displayName)} | ${integration.category} | \`/api/v1/external/${integration.name}\` | ${integration.eventHeader ? `\`${integration.eventHeader}\`` : 'in the body'} | ${events.map((event) => `\`${cell(event)}\``).join(', ')} | ${(integration.params ?? []).map((param) => `\`${param}\``).join(', ')} |`;
    });
  return ['| Integration | Kind | URL | Event named by | Events (for `only_events` / `exclude_events`) | Its own URL options |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

const referencePath = new URL('../../../test/reference/zulip-openapi.json', import.meta.url);
const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of Zulip's API reference (`METHOD /path`) with its summary. */
function referenceOperations(): [name: string, summary: string][] {
  const spec = JSON.parse(readFileSync(referencePath, 'utf8')) as { paths: Record<string, Record<string, { summary?: string }>> };
  return Object.entries(spec.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]): [string, string] => [`${method.toUpperCase()} ${path}`, operation.summary ?? '']),
  );
}

/** Every operation of Zulip's API reference, and whether Parley serves it (or why not). */
function apiTable(): string {
  const rows = referenceOperations().map(([name, summary]) => {
    const status = routed(routes, name) ? 'served' : (unservedOperations[name] ?? 'not served');
    return `| \`${name}\` | ${cell(summary)} | ${cell(status)} |`;
  });
  return ['| Operation | Zulip\'s summary | In Parley |', '|---|---|---|', ...rows.sort()].join('\n');
}

/** Every route that serves no operation of the reference: with the table above, the whole route
 * table. */
function beyondReferenceTable(): string {
  const operations = referenceOperations().map(([name]) => name);
  const rows = routes
    .filter((route) => !operations.some((name) => routed([route], name)))
    .map((route) => `| \`${route.method} ${route.atRoot ? '' : '/api/v1'}${cell(route.path)}\` | ${route.auth} | ${route.webhook ? 'incoming webhook' : route.page ? 'HTML page' : route.upload ? 'upload' : route.atRoot ? 'at the root' : 'JSON'} |`);
  return ['| Route | Credentials | Kind |', '|---|---|---|', ...[...new Set(rows)].sort()].join('\n');
}

/** Each generated block by name, as the docs hold it. */
export const generatedBlocks: Readonly<Record<string, () => string>> = {
  integrations: integrationTable,
  'api-operations': apiTable,
  'api-beyond-reference': beyondReferenceTable,
  'bench-results': benchResults,
};

const blockPattern = /(<!-- generated:([a-z-]+) -->)[^]*?(<!-- \/generated:\2 -->)/g;

/** A page with its generated blocks made anew (blocks it does not have are left alone). */
export function regenerate(page: string): string {
  return page.replace(blockPattern, (whole, open: string, name: string, close: string) => {
    const make = generatedBlocks[name];
    return make ? `${open}\n${make()}\n${close}` : whole;
  });
}
