// Who may change a message, and until when (Zulip's message editing and moving rules): content by
// its sender while the organization allows editing and within its time limit; topic moves by the
// organization's or the channel's group for them, channel moves likewise, each within its time
// limit unless the user is a moderator or administrator. Moving a topic's other messages along
// needs every one of them within the limit (MOVE_MESSAGES_TIME_LIMIT_EXCEEDED otherwise).
import { hasPermission } from '../channels/access.js';
import type { ChannelRecord } from '../channels/records.js';
import { ApiError, errors } from '../errors.js';
import { satisfies } from '../groups/membership.js';
import { defaultEditSettings, type MessageEditSettings } from '../organization/records.js';
import { realmGroupSetting } from '../organization/settings.js';
import type { RealmView } from '../organization/state.js';
import { Role, type UserRecord } from '../users/records.js';
import type { MessageRecord } from './records.js';

export const editSettings = (state: RealmView): MessageEditSettings => state.realm.messageEditing ?? defaultEditSettings;

const tooOld = (sentAt: number, now: number, limit: number | null): boolean => limit !== null && now - sentAt > limit;

export function checkContentEdit(state: RealmView, editor: UserRecord, message: MessageRecord, now: number): void {
  const settings = editSettings(state);
  if (!settings.allowMessageEditing) throw errors.badRequest('Your organization has turned off message editing');
  if (message.senderId !== editor.id) throw errors.badRequest("You don't have permission to edit this message");
  if (tooOld(message.timestamp, now, settings.contentEditLimitSeconds)) throw errors.badRequest('The time limit for editing this message has passed');
}

export type Move = 'topic' | 'channel';

/** The move's time limit for this user: none for moderators and administrators. */
export function moveLimit(state: RealmView, editor: UserRecord, move: Move): number | null {
  if (editor.role <= Role.moderator) return null;
  const settings = editSettings(state);
  return move === 'topic' ? settings.moveWithinChannelLimitSeconds : settings.moveBetweenChannelsLimitSeconds;
}

export function checkMove(state: RealmView, editor: UserRecord, message: MessageRecord, source: ChannelRecord, move: Move, now: number): void {
  const allowed =
    move === 'topic'
      ? satisfies(state, realmGroupSetting(state, 'can_move_messages_between_topics_group'), editor) || hasPermission(state, source, editor, 'can_move_messages_within_channel_group')
      : satisfies(state, realmGroupSetting(state, 'can_move_messages_between_channels_group'), editor) || hasPermission(state, source, editor, 'can_move_messages_out_of_channel_group');
  if (!allowed) throw errors.badRequest(move === 'topic' ? "You don't have permission to edit this message" : "You don't have permission to move this message");
  if (tooOld(message.timestamp, now, moveLimit(state, editor, move))) {
    throw errors.badRequest(move === 'topic' ? "The time limit for editing this message's topic has passed" : "The time limit for editing this message's channel has passed");
  }
}

/** Refuses moving a topic's messages along when some are past the user's time limit, telling how
 * many of the newest the user may move (Zulip's MOVE_MESSAGES_TIME_LIMIT_EXCEEDED). */
export function checkMovedTogether(messages: readonly MessageRecord[], limit: number | null, now: number): void {
  if (limit === null) return;
  const allowed = messages.filter((message) => !tooOld(message.timestamp, now, limit));
  if (allowed.length === messages.length) return;
  throw new ApiError(400, 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED', `You only have permission to move the ${allowed.length}/${messages.length} most recent messages in this topic.`, {
    first_message_id_allowed_to_move: allowed[0]?.id ?? null,
    total_messages_allowed_to_move: allowed.length,
    total_messages_in_topic: messages.length,
  });
}
