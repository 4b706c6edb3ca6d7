// Rendering message content as a user of a realm sends it: the realm's names, linkifiers and URL,
// and the user's own settings.
import { renderMessage } from '../markdown/index.js';
import type { CommandContext } from '../realm/context.js';
import { realmUrl } from '../realm/records.js';
import type { UserRecord } from '../users/records.js';
import { userSetting } from '../users/settings.js';
import { mentionResolver } from './mentions.js';

export type RenderedMessage = ReturnType<typeof renderMessage>;

export function renderAs(ctx: CommandContext, user: UserRecord, content: string): RenderedMessage {
  return renderMessage(content, mentionResolver(ctx.state), {
    linkifiers: ctx.state.compiledLinkifiers(),
    realmUrl: realmUrl(ctx.state.realm, ctx.config),
    translateEmoticons: userSetting(user, 'translate_emoticons') === true,
  });
}
