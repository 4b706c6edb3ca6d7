// Rendering message content as a user of a realm sends it: the realm's names, linkifiers and URL,
// and the user's own settings.
import { renderMessage } from '../markdown/index.js';
import type { Config } from '../config.js';
import { realmUrl } from '../organization/records.js';
import type { RealmView } from '../organization/state.js';
import type { UserRecord } from '../users/records.js';
import { userSetting } from '../users/settings.js';
import { mentionResolver } from './mentions.js';

export type RenderedMessage = ReturnType<typeof renderMessage>;

export function renderAs(state: RealmView, config: Pick<Config, 'externalHost' | 'mode' | 'clock'>, user: UserRecord, content: string): RenderedMessage {
  return renderMessage(content, mentionResolver(state), {
    linkifiers: state.compiledLinkifiers(),
    realmUrl: realmUrl(state.realm, config),
    translateEmoticons: userSetting(user, 'translate_emoticons') === true,
    now: config.clock.now(),
  });
}
