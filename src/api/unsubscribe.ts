// The one-click unsubscribe link of missed-message e-mails: GET from the e-mail's link, POST from a
// mail client's List-Unsubscribe-Post (RFC 8058). Either turns enable_offline_email_notifications off.
import type * as schemas from '../../schemas/index.js';
import { ApiError } from '../errors.js';
import type { PublicRequest } from '../http/route.js';
import type { Params } from '../http/validation.js';
import { escapeText } from '../markdown/html.js';
import { page } from './invites.js';

export async function unsubscribeMissedMessages(request: PublicRequest, params: Params<typeof schemas.unsubscribeMissedMessages>) {
  try {
    const { realmName } = await request.realm.ask('settings.unsubscribe', null, { userId: params.user_id, token: params.token });
    return page('Unsubscribed', `<p>You will no longer get e-mails about messages you missed in ${escapeText(realmName)}. You can turn them back on in your notification settings.</p>`);
  } catch (error) {
    if (error instanceof ApiError) return page('Unsubscribe', `<p class="error" role="alert">${escapeText(error.message)}</p>`, 400);
    throw error;
  }
}
