// POST /register against the reference, generated from its response schema: every documented
// fetch type asked alone, and all of them together, must return every key the reference maps to it,
// shaped as the reference says. Nothing here is a hand-written key list: the keys and the fetch type
// that yields each come from the descriptions in test/reference/zulip-openapi.json.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { register } from './helpers/events.js';
import { assertMatchesReference, responseSchema, specRegisterFields, specUserFields } from './helpers/reference.js';
import { startTestServer, type TestServer } from './helpers/server.js';

interface DocumentedKey {
  name: string;
  /** The fetch types that must all be asked for the key to be present; null: no condition documented. */
  types: string[] | null;
  /** Only for clients without the `user_settings_object` capability. */
  legacySetting: boolean;
  /** Present only in a situation a fresh demo realm is not in (a demo organization). */
  situational: boolean;
}

/** Keys every register answers, whatever it asks for. */
const always = ['result', 'msg', 'queue_id', 'last_event_id', 'zulip_feature_level', 'zulip_version', 'zulip_merge_base'];

function documentedKeys(): DocumentedKey[] {
  const properties = responseSchema('POST /register').properties as Record<string, { description?: string }>;
  return Object.entries(properties)
    .filter(([name]) => name !== 'ignored_parameters_unsupported')
    .map(([name, schema]) => {
      const description = (schema.description ?? '').replace(/\s+/g, ' ');
      const single = /Present if `(\w+)` is present in `fetch_event_types`/.exec(description);
      const pair = /Present if `(\w+)` and `(\w+)` are both present in `event_types`/.exec(description);
      return {
        name,
        types: single ? [single[1]!] : pair ? [pair[1]!, pair[2]!] : null,
        legacySetting: description.includes('did not include `user_settings_object`'),
        situational: description.includes('the realm is a demo organization'),
      };
    });
}

const keys = documentedKeys();
const fetchTypes = [...new Set(keys.flatMap((key) => (key.types?.length === 1 ? key.types : [])))].sort();
/** register's answer may carry the fields the project's spec adds to Zulip's (has_provider_token). */
const additions = [{ ...specUserFields, at: ['realm_users[]', 'realm_non_active_users[]'] }, specRegisterFields];

function missing(state: Record<string, unknown>, expected: DocumentedKey[]): string[] {
  return expected.filter((key) => !(key.name in state)).map((key) => key.name);
}

const generated = suite<{ server: TestServer }>('register against the reference');

generated.before(async (context) => {
  context.server = await startTestServer();
});
generated.after(async ({ server }) => server.stop());

generated('the reference documents what this test reads: fetch types, and the keys of each', () => {
  assert.ok(fetchTypes.length >= 40, `fetch types read from the reference: ${fetchTypes.join(', ')}`);
  assert.ok(keys.length >= 240, `${keys.length} documented keys`);
  for (const type of ['realm_user_groups', 'channel_folders', 'presence', 'realm_emoji', 'starred_messages']) assert.ok(fetchTypes.includes(type), type);
});

generated('each documented fetch type asked alone returns every key the reference maps to it', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const problems: string[] = [];
  for (const type of fetchTypes) {
    const { state } = await register(hamlet, { fetch_event_types: [type] });
    const expected = keys.filter((key) => !key.situational && (key.types?.length === 1 && key.types[0] === type));
    const absent = missing(state, [...expected, ...keys.filter((key) => always.includes(key.name))]);
    if (absent.length > 0) problems.push(`${type}: ${absent.join(', ')}`);
    assertMatchesReference('POST /register', state, additions);
  }
  assert.equal(problems, [], `keys missing:\n${problems.join('\n')}`);
});

generated('all fetch types together return every documented key, shaped as the reference says', async ({ server }) => {
  for (const email of ['hamlet@zulip.com', 'iago@zulip.com', 'polonius@zulip.com']) {
    const client = await server.as(email);
    const { state } = await register(client, { client_gravatar: false, include_subscribers: true });
    const expected = keys.filter((key) => !key.situational);
    assert.equal(missing(state, expected), [], email);
    assertMatchesReference('POST /register', state, additions);
  }
});

generated('clients with the user_settings_object capability get settings only in user_settings', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const legacy = keys.filter((key) => key.legacySetting).map((key) => key.name);
  assert.ok(legacy.length >= 30, `${legacy.length} legacy setting keys`);
  const modern = (await register(hamlet, { client_capabilities: { user_settings_object: true } })).state;
  assert.equal(
    legacy.filter((name) => name in modern),
    [],
  );
  const settings = modern.user_settings as Record<string, unknown>;
  const old = (await register(hamlet, { client_capabilities: {} })).state;
  for (const name of legacy) if (name in settings) assert.equal(old[name], settings[name], name);
});

generated("Zulip's fetch-type names are the ones clients use; the old spellings fetch nothing", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const groups = (await register(hamlet, { fetch_event_types: ['realm_user_groups'] })).state;
  assert.ok(Array.isArray(groups.realm_user_groups));
  const folders = (await register(hamlet, { fetch_event_types: ['channel_folders'] })).state;
  assert.ok(Array.isArray(folders.channel_folders));
  const old = (await register(hamlet, { fetch_event_types: ['user_group', 'channel_folder'] })).state;
  assert.not.ok('realm_user_groups' in old || 'channel_folders' in old);
});

generated("event types named like an object's own properties open a queue like any unknown type (no 500)", async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const response = await hamlet.post('/register', { event_types: ['constructor', 'toString', '__proto__', 'message'], fetch_event_types: ['message'] });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.type(response.body.queue_id, 'string');
});

generated('the URLs register gives for emoji data and the logo are served by the server', async ({ server }) => {
  const hamlet = await server.as('hamlet@zulip.com');
  const { state } = await register(hamlet, { fetch_event_types: ['realm'] });
  const fetchPath = (url: unknown) => fetch(`${server.baseUrl}${new URL(String(url)).pathname}`);
  const emoji = await fetchPath(state.server_emoji_data_url);
  assert.is(emoji.status, 200);
  assert.match(String(emoji.headers.get('cache-control')), /max-age=\d+/);
  const { code_to_names: codeToNames } = (await emoji.json()) as { code_to_names: Record<string, string[]> };
  assert.ok(codeToNames['1f44d']?.includes('+1'), 'thumbs up is +1');
  // The names the table gives are the names messages render (the first is the canonical one).
  const rendered = await hamlet.post('/messages/render', { content: `:${codeToNames['1f389']![0]}:` });
  assert.match(String(rendered.body.rendered), /emoji-1f389/);
  const logo = await fetchPath(state.realm_logo_url);
  assert.equal([logo.status, logo.headers.get('content-type')], [200, 'image/svg+xml']);
});

generated.run();
