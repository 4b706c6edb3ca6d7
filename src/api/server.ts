// Server-wide, unauthenticated endpoints: GET /server_settings, and the operator's probes.
import { errors } from '../errors.js';
import { fieldsOf, type JsonFields } from '../realm/jsonFields.js';
import { onceReady, type PublicRequest } from '../http/route.js';
import { realmUrl } from '../organization/records.js';
import type { OutputOf } from '../realm/commands/index.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';

/** Each realm summary's answer as JSON. The realm gives the same summary until its record changes,
 * and a summary belongs to one server (one config): most requests reuse the answer. */
const answers = new WeakMap<OutputOf<'realm.summary'>, JsonFields>();

/** At once when the realm answers at once (no write under way). */
export function getServerSettings(request: PublicRequest) {
  return onceReady(request.realm.answer('realm.summary', null, {}), (realm) => {
    let answer = answers.get(realm);
    if (!answer) answers.set(realm, (answer = fieldsOf(serverSettings(request, realm))));
    return answer;
  });
}

function serverSettings(request: PublicRequest, realm: OutputOf<'realm.summary'>) {
  const url = realmUrl(realm, request.config);
  const development = request.config.mode === 'development';
  return {
    authentication_methods: {
      password: true,
      dev: development,
      email: true,
      ldap: false,
      remoteuser: false,
      github: false,
      azuread: false,
      gitlab: false,
      apple: false,
      google: false,
      saml: false,
      'openid connect': false,
    },
    external_authentication_methods: [],
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
    push_notifications_enabled: false,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_uri: url,
    realm_url: url,
    realm_name: realm.name,
    realm_icon: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_description: realm.description,
    realm_web_public_access_enabled: request.config.webPublicStreamsEnabled && realm.enableSpectatorAccess,
  };
}

/** GET /health: the process is alive and answers HTTP. */
export const health = () => ({});

/** GET /ready: the server accepts work: it is not shutting down (then every request is a 503), its
 * realm answers, and its store saves writes. */
export async function ready(request: PublicRequest) {
  const { storageFailure } = await request.realm.ask('realm.health', null, {});
  if (storageFailure !== null) throw errors.notReady(storageFailure);
  return {};
}
