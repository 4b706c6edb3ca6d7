// The route table: every endpoint of the server, its parameter schema (schemas/<name>.json), who
// may call it, and its handler. Paths are relative to /api/v1 (except `atRoot` ones); `{name:int}`
// is an integer segment.
import { adminRoute, atRoot, humanRoute, publicRoute, unlimited, userRoute, type Route } from '../http/route.js';
import { defaultLogoPath, emojiDataPath } from '../realm/commands/realmState.js';
import { devFetchApiKey, fetchApiKey, jwtFetchApiKey } from './auth.js';
import { addDefaultChannel, archiveChannel, deleteTopic, getChannel, getChannelId, getChannelMembers, getChannels, getSubscriptions, muteTopic, setTopicVisibility, subscribe, removeDefaultChannel, unsubscribe, updateChannel, updateSubscriptionSetting, updateSubscriptionSettings } from './channels.js';
import { createLinkifier, deleteLinkifier, getLinkifiers, reorderLinkifiers, updateLinkifier } from './linkifiers.js';
import { createDrafts, deleteDraft, getDrafts, updateDraft } from './drafts.js';
import { createFolder, getFolders, reorderFolders, updateFolder } from './folders.js';
import {
  createUserGroup,
  deactivateUserGroup,
  getUserGroupMembers,
  getUserGroupMembership,
  getUserGroups,
  getUserGroupSubgroups,
  updateUserGroup,
  updateUserGroupMembers,
  updateUserGroupSubgroups,
} from './groups.js';
import { deleteQueue, getEvents, issueSocketToken, register } from './events.js';
import { createScheduledMessage, deleteScheduledMessage, getScheduledMessages, updateScheduledMessage } from './scheduled.js';
import { getServerSettings } from './server.js';
import { getDefaultLogo, getEmojiData } from './static.js';
import { thumbnail } from './thumbnail.js';
import { completeCallAuthorization, createCall, startCallAuthorization } from './calls.js';
import { registerPushDevice, sendTestPushNotification } from './push.js';
import { createProfileField, getProfileFields, reorderProfileFields, updateOwnProfileData, updateProfileField } from './profileFields.js';
import {
  deleteMessage,
  editMessage,
  getMessage,
  getMessageHistory,
  getMessages,
  getTopics,
  markAllAsRead,
  markChannelAsRead,
  markTopicAsRead,
  renderMessage,
  sendMessage,
  updateFlags,
  updateFlagsForNarrow,
} from './messages.js';
import { addAlertWords, createBot, createUser, deactivateUser, getOwnUser, getUser, getAlertWords, getUserByEmail, getUsers, getUserStatus, reactivateUser, regenerateOwnApiKey, removeAlertWords, setOwnStatus, updateSettings, updateUser } from './users.js';

export const routes: readonly Route[] = [
  publicRoute('GET', '/server_settings', 'get-server-settings', getServerSettings),
  publicRoute('POST', '/dev_fetch_api_key', 'dev-fetch-api-key', devFetchApiKey),
  publicRoute('POST', '/fetch_api_key', 'fetch-api-key', fetchApiKey),
  publicRoute('POST', '/jwt/fetch_api_key', 'jwt-fetch-api-key', jwtFetchApiKey),
  atRoot(publicRoute('GET', emojiDataPath, 'get-static-file', getEmojiData)),
  atRoot(publicRoute('GET', defaultLogoPath, 'get-static-file', getDefaultLogo)),

  userRoute('POST', '/register', 'register-queue', register),
  unlimited(userRoute('GET', '/events', 'get-events', getEvents)),
  userRoute('DELETE', '/events', 'delete-queue', deleteQueue),
  userRoute('POST', '/events/socket_token', 'issue-socket-token', issueSocketToken),

  userRoute('GET', '/users/me', 'get-own-user', getOwnUser),
  userRoute('POST', '/users/me/api_key/regenerate', 'regenerate-api-key', regenerateOwnApiKey),
  adminRoute('POST', '/users', 'create-user', createUser),
  userRoute('GET', '/users', 'get-users', getUsers),
  userRoute('GET', '/users/{user_id:int}', 'get-user', getUser),
  userRoute('GET', '/users/{email}', 'get-user-by-email', getUserByEmail),
  adminRoute('PATCH', '/users/{user_id:int}', 'update-user', updateUser),
  adminRoute('DELETE', '/users/{user_id:int}', 'deactivate-user', deactivateUser),
  adminRoute('POST', '/users/{user_id:int}/reactivate', 'reactivate-user', reactivateUser),
  humanRoute('POST', '/bots', 'create-bot', createBot),
  userRoute('POST', '/users/me/status', 'update-status', setOwnStatus),
  humanRoute('PATCH', '/settings', 'update-settings', updateSettings),
  userRoute('GET', '/users/me/alert_words', 'get-alert-words', getAlertWords),
  userRoute('POST', '/users/me/alert_words', 'add-alert-words', addAlertWords),
  userRoute('DELETE', '/users/me/alert_words', 'remove-alert-words', removeAlertWords),
  humanRoute('PATCH', '/users/me/profile_data', 'update-profile-data', updateOwnProfileData),
  userRoute('GET', '/realm/profile_fields', 'get-custom-profile-fields', getProfileFields),
  adminRoute('POST', '/realm/profile_fields', 'create-custom-profile-field', createProfileField),
  adminRoute('PATCH', '/realm/profile_fields', 'reorder-custom-profile-fields', reorderProfileFields),
  adminRoute('PATCH', '/realm/profile_fields/{field_id:int}', 'update-custom-profile-field', updateProfileField),
  userRoute('GET', '/users/{user_id:int}/status', 'get-user-status', getUserStatus),

  userRoute('POST', '/users/me/subscriptions', 'subscribe', subscribe),
  userRoute('GET', '/users/me/subscriptions', 'get-subscriptions', getSubscriptions),
  userRoute('DELETE', '/users/me/subscriptions', 'unsubscribe', unsubscribe),
  adminRoute('POST', '/default_streams', 'add-default-stream', addDefaultChannel),
  adminRoute('DELETE', '/default_streams', 'remove-default-stream', removeDefaultChannel),
  userRoute('PATCH', '/users/me/subscriptions/{stream_id:int}', 'update-subscription-setting', updateSubscriptionSetting),
  userRoute('POST', '/users/me/subscriptions/properties', 'update-subscription-settings', updateSubscriptionSettings),
  userRoute('PATCH', '/users/me/subscriptions/muted_topics', 'mute-topic', muteTopic),
  userRoute('POST', '/user_topics', 'update-user-topic', setTopicVisibility),
  userRoute('GET', '/streams', 'get-streams', getChannels),
  userRoute('GET', '/streams/{stream_id:int}', 'get-stream-by-id', getChannel),
  userRoute('PATCH', '/streams/{stream_id:int}', 'update-stream', updateChannel),
  userRoute('DELETE', '/streams/{stream_id:int}', 'archive-stream', archiveChannel),
  adminRoute('POST', '/streams/{stream_id:int}/delete_topic', 'delete-topic', deleteTopic),
  userRoute('GET', '/streams/{stream_id:int}/members', 'get-subscribers', getChannelMembers),
  userRoute('GET', '/get_stream_id', 'get-stream-id', getChannelId),

  userRoute('GET', '/channel_folders', 'get-channel-folders', getFolders),
  adminRoute('POST', '/channel_folders/create', 'create-channel-folder', createFolder),
  adminRoute('PATCH', '/channel_folders', 'patch-channel-folders', reorderFolders),
  adminRoute('PATCH', '/channel_folders/{channel_folder_id:int}', 'update-channel-folder', updateFolder),

  userRoute('GET', '/user_groups', 'get-user-groups', getUserGroups),
  userRoute('POST', '/user_groups/create', 'create-user-group', createUserGroup),
  userRoute('PATCH', '/user_groups/{user_group_id:int}', 'update-user-group', updateUserGroup),
  userRoute('POST', '/user_groups/{user_group_id:int}/members', 'update-user-group-members', updateUserGroupMembers),
  userRoute('GET', '/user_groups/{user_group_id:int}/members', 'get-user-group-members', getUserGroupMembers),
  userRoute('GET', '/user_groups/{user_group_id:int}/members/{user_id:int}', 'get-is-user-group-member', getUserGroupMembership),
  userRoute('POST', '/user_groups/{user_group_id:int}/subgroups', 'update-user-group-subgroups', updateUserGroupSubgroups),
  userRoute('GET', '/user_groups/{user_group_id:int}/subgroups', 'get-user-group-subgroups', getUserGroupSubgroups),
  userRoute('POST', '/user_groups/{user_group_id:int}/deactivate', 'deactivate-user-group', deactivateUserGroup),

  userRoute('GET', '/realm/linkifiers', 'get-linkifiers', getLinkifiers),
  adminRoute('POST', '/realm/filters', 'add-linkifier', createLinkifier),
  adminRoute('PATCH', '/realm/filters/{filter_id:int}', 'update-linkifier', updateLinkifier),
  adminRoute('DELETE', '/realm/filters/{filter_id:int}', 'remove-linkifier', deleteLinkifier),
  adminRoute('PATCH', '/realm/linkifiers', 'reorder-linkifiers', reorderLinkifiers),

  userRoute('GET', '/drafts', 'get-drafts', getDrafts),
  userRoute('POST', '/drafts', 'create-drafts', createDrafts),
  userRoute('PATCH', '/drafts/{draft_id:int}', 'edit-draft', updateDraft),
  userRoute('DELETE', '/drafts/{draft_id:int}', 'delete-draft', deleteDraft),

  userRoute('GET', '/scheduled_messages', 'get-scheduled-messages', getScheduledMessages),
  userRoute('POST', '/scheduled_messages', 'create-scheduled-message', createScheduledMessage),
  userRoute('PATCH', '/scheduled_messages/{scheduled_message_id:int}', 'update-scheduled-message', updateScheduledMessage),
  userRoute('DELETE', '/scheduled_messages/{scheduled_message_id:int}', 'delete-scheduled-message', deleteScheduledMessage),

  humanRoute('POST', '/mobile_push/register', 'register-push-device', registerPushDevice),
  userRoute('POST', '/mobile_push/e2ee/test_notification', 'e2ee-test-notify', sendTestPushNotification),

  userRoute('POST', '/calls/provider/create', 'create-video-call', createCall),
  userRoute('GET', '/calls/provider/register', 'start-video-call-authorization', startCallAuthorization),
  publicRoute('GET', '/calls/provider/complete', 'complete-video-call-authorization', completeCallAuthorization),

  userRoute('POST', '/messages', 'send-message', sendMessage),
  userRoute('GET', '/messages', 'get-messages', getMessages),
  userRoute('POST', '/messages/render', 'render-message', renderMessage),
  atRoot(userRoute('GET', '/thumbnail', 'get-thumbnail', thumbnail)),
  userRoute('GET', '/messages/{message_id:int}', 'get-message', getMessage),
  userRoute('PATCH', '/messages/{message_id:int}', 'update-message', editMessage),
  userRoute('GET', '/messages/{message_id:int}/history', 'get-message-history', getMessageHistory),
  userRoute('DELETE', '/messages/{message_id:int}', 'delete-message', deleteMessage),
  userRoute('GET', '/users/me/{stream_id:int}/topics', 'get-stream-topics', getTopics),
  userRoute('POST', '/mark_all_as_read', 'mark-all-as-read', markAllAsRead),
  userRoute('POST', '/mark_stream_as_read', 'mark-stream-as-read', markChannelAsRead),
  userRoute('POST', '/mark_topic_as_read', 'mark-topic-as-read', markTopicAsRead),
  userRoute('POST', '/messages/flags', 'update-message-flags', updateFlags),
  userRoute('POST', '/messages/flags/narrow', 'update-message-flags-for-narrow', updateFlagsForNarrow),
];
