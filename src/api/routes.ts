// The route table: every endpoint of the server, its parameter schema (schemas/<operation>.ts), who
// may call it, and its handler. Paths are relative to /api/v1 (except `atRoot` ones); `{name:int}`
// is an integer segment.
import * as schemas from '../../schemas/index.js';
import { adminRoute, atRoot, forIncomingWebhookBots, humanRoute, page, publicRoute, unlimited, uploadRoute, userRoute, webhookRoute, type Route } from '../http/route.js';
import { receiveWebhook } from './webhooks.js';
import { defaultLogoPath, emojiDataPath } from '../realm/commands/realmState.js';
import { devFetchApiKey, devListUsers, fetchApiKey, jwtFetchApiKey } from './auth.js';
import { addDefaultChannel, archiveChannel, createChannel, deleteTopic, getChannel, getChannelEmailAddress, getChannelId, getChannelMembers, getSubscriptionStatus, getChannels, getSubscriptions, muteTopic, setTopicVisibility, subscribe, removeDefaultChannel, unsubscribe, updateChannel, updateSubscriptionSetting, updateSubscriptionSettings, updateSubscriptions } from './channels.js';
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
import { createMessageReminder, deleteReminder, getReminders } from './reminders.js';
import { reportMessage } from './reports.js';
import { createScheduledMessage, deleteScheduledMessage, getScheduledMessages, updateScheduledMessage } from './scheduled.js';
import { testWelcomeMessage, updateRealm, updateUserSettingsDefaults } from './realm.js';
import { deactivateCustomEmoji, getRealmEmoji, uploadCustomEmoji } from './realmEmoji.js';
import { deleteAvatar, publicImage, uploadAvatar } from './avatars.js';
import { unsubscribeMissedMessages } from './unsubscribe.js';
import { createInviteLink, getInvites, join, joinPage, resendEmailInvite, revokeEmailInvite, revokeInviteLink, sendInvites } from './invites.js';
import { getServerSettings, health, ready } from './server.js';
import { getDefaultLogo, getEmojiData } from './static.js';
import { getWebApp, getWebAsset } from './web.js';
import { thumbnail } from './thumbnail.js';
import { getAttachments, getFile, getFileTemporaryUrl, getTemporaryFile, removeAttachment, uploadFile } from './uploads.js';
import { bigBlueButtonJoinPage, completeCallAuthorization, createBigBlueButtonCall, createCall, joinBigBlueButton, startCallAuthorization } from './calls.js';
import { addNavigationView, editNavigationView, getNavigationViews, removeNavigationView } from './navigationViews.js';
import { addPlayground, removePlayground } from './playgrounds.js';
import { deleteRealmExport, exportRealm, getRealmExportConsents, getRealmExportFile, getRealmExports } from './realmExport.js';
import { addApnsToken, addFcmToken, registerPushDevice, removeApnsToken, removeFcmToken, sendLegacyTestPushNotification, sendTestPushNotification } from './push.js';
import { getBotStorage, removeBotStorage, updateBotStorage } from './botStorage.js';
import { createSavedSnippet, deleteSavedSnippet, editSavedSnippet, getSavedSnippets } from './savedSnippets.js';
import { getRealmPresence, getUserPresence, updatePresence } from './presence.js';
import { setEditTypingStatus, setTypingStatus } from './typing.js';
import { createProfileField, getProfileFields, reorderProfileFields, updateOwnProfileData, updateProfileField } from './profileFields.js';
import {
  addReaction,
  checkMessagesMatchNarrow,
  deleteMessage,
  editMessage,
  getMessage,
  getMessageHistory,
  getMessages,
  getReadReceipts,
  getTopics,
  markAllAsRead,
  markChannelAsRead,
  markTopicAsRead,
  removeReaction,
  addSubmessage,
  renderMessage,
  sendMessage,
  updateFlags,
  updateFlagsForNarrow,
} from './messages.js';
import { addAlertWords, createBot, deactivateBot, regenerateBotApiKey, updateBot, createUser, deactivateOwnUser, deactivateUser, getOwnUser, getUser, getAlertWords, getUserByEmail, getUsers, getUserStatus, muteUser, reactivateUser, regenerateOwnApiKey, removeAlertWords, setOwnStatus, setUserStatus, unmuteUser, updateSettings, updateUser } from './users.js';

export const routes: readonly Route[] = [
  publicRoute('GET', '/server_settings', schemas.getServerSettings, getServerSettings),
  publicRoute('POST', '/dev_fetch_api_key', schemas.devFetchApiKey, devFetchApiKey),
  publicRoute('GET', '/dev_list_users', schemas.devListUsers, devListUsers),
  publicRoute('POST', '/fetch_api_key', schemas.fetchApiKey, fetchApiKey),
  publicRoute('POST', '/jwt/fetch_api_key', schemas.jwtFetchApiKey, jwtFetchApiKey),
  atRoot(unlimited(publicRoute('GET', '/health', schemas.getHealth, health))),
  atRoot(unlimited(publicRoute('GET', '/ready', schemas.getHealth, ready))),
  atRoot(publicRoute('GET', emojiDataPath, schemas.getStaticFile, getEmojiData)),
  atRoot(publicRoute('GET', defaultLogoPath, schemas.getStaticFile, getDefaultLogo)),
  // The web client: its page and its files are not rate limited (a page load is several requests).
  atRoot(unlimited(publicRoute('GET', '/', schemas.getStaticFile, getWebApp))),
  atRoot(unlimited(publicRoute('GET', '/static/{file_name}', schemas.getWebAsset, getWebAsset))),

  userRoute('POST', '/register', schemas.registerQueue, register),
  unlimited(userRoute('GET', '/events', schemas.getEvents, getEvents)),
  userRoute('DELETE', '/events', schemas.deleteQueue, deleteQueue),
  userRoute('POST', '/events/socket_token', schemas.issueSocketToken, issueSocketToken),

  userRoute('GET', '/users/me', schemas.getOwnUser, getOwnUser),
  userRoute('DELETE', '/users/me', schemas.deactivateOwnUser, deactivateOwnUser),
  uploadRoute('POST', '/users/me/avatar', schemas.uploadAvatar, uploadAvatar),
  userRoute('GET', '/invites', schemas.getInvites, getInvites),
  userRoute('POST', '/invites', schemas.sendInvites, sendInvites),
  userRoute('POST', '/invites/multiuse', schemas.createInviteLink, createInviteLink),
  userRoute('DELETE', '/invites/multiuse/{invite_id:int}', schemas.revokeInviteLink, revokeInviteLink),
  userRoute('DELETE', '/invites/{invite_id:int}', schemas.revokeEmailInvite, revokeEmailInvite),
  userRoute('POST', '/invites/{invite_id:int}/resend', schemas.resendEmailInvite, resendEmailInvite),
  page(publicRoute('GET', '/join/{key}', schemas.getJoinPage, joinPage)),
  page(publicRoute('POST', '/join/{key}', schemas.joinOrganization, join)),
  page(publicRoute('GET', '/accounts/unsubscribe/missed_messages/{user_id:int}/{token}', schemas.unsubscribeMissedMessages, unsubscribeMissedMessages)),
  page(publicRoute('POST', '/accounts/unsubscribe/missed_messages/{user_id:int}/{token}', schemas.unsubscribeMissedMessages, unsubscribeMissedMessages)),
  userRoute('DELETE', '/users/me/avatar', schemas.deleteAvatar, deleteAvatar),
  userRoute('POST', '/users/me/api_key/regenerate', schemas.regenerateApiKey, regenerateOwnApiKey),
  adminRoute('POST', '/users', schemas.createUser, createUser),
  userRoute('GET', '/users', schemas.getUsers, getUsers),
  userRoute('GET', '/users/{user_id:int}', schemas.getUser, getUser),
  userRoute('GET', '/users/{email}', schemas.getUserByEmail, getUserByEmail),
  adminRoute('PATCH', '/users/{user_id:int}', schemas.updateUser, updateUser),
  adminRoute('DELETE', '/users/{user_id:int}', schemas.deactivateUser, deactivateUser),
  adminRoute('POST', '/users/{user_id:int}/reactivate', schemas.reactivateUser, reactivateUser),
  humanRoute('POST', '/bots', schemas.createBot, createBot),
  humanRoute('PATCH', '/bots/{bot_id:int}', schemas.updateBot, updateBot),
  humanRoute('DELETE', '/bots/{bot_id:int}', schemas.botId, deactivateBot),
  humanRoute('POST', '/bots/{bot_id:int}/api_key/regenerate', schemas.botId, regenerateBotApiKey),
  userRoute('POST', '/users/me/status', schemas.updateStatus, setOwnStatus),
  humanRoute('PATCH', '/settings', schemas.updateSettings, updateSettings),
  userRoute('GET', '/users/me/alert_words', schemas.getAlertWords, getAlertWords),
  userRoute('POST', '/users/me/alert_words', schemas.addAlertWords, addAlertWords),
  userRoute('DELETE', '/users/me/alert_words', schemas.removeAlertWords, removeAlertWords),
  humanRoute('PATCH', '/users/me/profile_data', schemas.updateProfileData, updateOwnProfileData),
  adminRoute('PATCH', '/realm', schemas.updateRealm, updateRealm),
  adminRoute('PATCH', '/realm/user_settings_defaults', schemas.updateRealmUserSettingsDefaults, updateUserSettingsDefaults),
  adminRoute('POST', '/realm/test_welcome_bot_custom_message', schemas.testWelcomeBotCustomMessage, testWelcomeMessage),
  userRoute('GET', '/realm/profile_fields', schemas.getCustomProfileFields, getProfileFields),
  adminRoute('POST', '/realm/profile_fields', schemas.createCustomProfileField, createProfileField),
  adminRoute('PATCH', '/realm/profile_fields', schemas.reorderCustomProfileFields, reorderProfileFields),
  adminRoute('PATCH', '/realm/profile_fields/{field_id:int}', schemas.updateCustomProfileField, updateProfileField),
  userRoute('GET', '/users/{user_id:int}/status', schemas.getUserStatus, getUserStatus),
  userRoute('POST', '/users/{user_id:int}/status', schemas.updateStatusForUser, setUserStatus),
  userRoute('POST', '/users/me/muted_users/{muted_user_id:int}', schemas.muteUser, muteUser),
  userRoute('DELETE', '/users/me/muted_users/{muted_user_id:int}', schemas.unmuteUser, unmuteUser),
  humanRoute('POST', '/users/me/presence', schemas.updatePresence, updatePresence),
  userRoute('GET', '/users/{email}/presence', schemas.getUserPresence, getUserPresence),
  userRoute('GET', '/realm/presence', schemas.getPresence, getRealmPresence),
  userRoute('POST', '/typing', schemas.setTypingStatus, setTypingStatus),

  userRoute('POST', '/users/me/subscriptions', schemas.subscribe, subscribe),
  userRoute('GET', '/users/me/subscriptions', schemas.getSubscriptions, getSubscriptions),
  userRoute('DELETE', '/users/me/subscriptions', schemas.unsubscribe, unsubscribe),
  userRoute('PATCH', '/users/me/subscriptions', schemas.updateSubscriptions, updateSubscriptions),
  adminRoute('POST', '/default_streams', schemas.addDefaultStream, addDefaultChannel),
  adminRoute('DELETE', '/default_streams', schemas.removeDefaultStream, removeDefaultChannel),
  userRoute('PATCH', '/users/me/subscriptions/{stream_id:int}', schemas.updateSubscriptionSetting, updateSubscriptionSetting),
  userRoute('POST', '/users/me/subscriptions/properties', schemas.updateSubscriptionSettings, updateSubscriptionSettings),
  userRoute('PATCH', '/users/me/subscriptions/muted_topics', schemas.muteTopic, muteTopic),
  userRoute('POST', '/user_topics', schemas.updateUserTopic, setTopicVisibility),
  userRoute('POST', '/channels/create', schemas.createChannel, createChannel),
  userRoute('GET', '/streams', schemas.getStreams, getChannels),
  userRoute('GET', '/streams/{stream_id:int}', schemas.getStreamById, getChannel),
  userRoute('PATCH', '/streams/{stream_id:int}', schemas.updateStream, updateChannel),
  userRoute('DELETE', '/streams/{stream_id:int}', schemas.archiveStream, archiveChannel),
  adminRoute('POST', '/streams/{stream_id:int}/delete_topic', schemas.deleteTopic, deleteTopic),
  userRoute('GET', '/streams/{stream_id:int}/members', schemas.getSubscribers, getChannelMembers),
  userRoute('GET', '/streams/{stream_id:int}/email_address', schemas.getStreamEmailAddress, getChannelEmailAddress),
  userRoute('GET', '/users/{user_id:int}/subscriptions/{stream_id:int}', schemas.getSubscriptionStatus, getSubscriptionStatus),
  userRoute('GET', '/get_stream_id', schemas.getStreamId, getChannelId),

  userRoute('GET', '/channel_folders', schemas.getChannelFolders, getFolders),
  adminRoute('POST', '/channel_folders/create', schemas.createChannelFolder, createFolder),
  adminRoute('PATCH', '/channel_folders', schemas.patchChannelFolders, reorderFolders),
  adminRoute('PATCH', '/channel_folders/{channel_folder_id:int}', schemas.updateChannelFolder, updateFolder),

  userRoute('GET', '/user_groups', schemas.getUserGroups, getUserGroups),
  userRoute('POST', '/user_groups/create', schemas.createUserGroup, createUserGroup),
  userRoute('PATCH', '/user_groups/{user_group_id:int}', schemas.updateUserGroup, updateUserGroup),
  userRoute('POST', '/user_groups/{user_group_id:int}/members', schemas.updateUserGroupMembers, updateUserGroupMembers),
  userRoute('GET', '/user_groups/{user_group_id:int}/members', schemas.getUserGroupMembers, getUserGroupMembers),
  userRoute('GET', '/user_groups/{user_group_id:int}/members/{user_id:int}', schemas.getIsUserGroupMember, getUserGroupMembership),
  userRoute('POST', '/user_groups/{user_group_id:int}/subgroups', schemas.updateUserGroupSubgroups, updateUserGroupSubgroups),
  userRoute('GET', '/user_groups/{user_group_id:int}/subgroups', schemas.getUserGroupSubgroups, getUserGroupSubgroups),
  userRoute('POST', '/user_groups/{user_group_id:int}/deactivate', schemas.deactivateUserGroup, deactivateUserGroup),

  userRoute('GET', '/realm/linkifiers', schemas.getLinkifiers, getLinkifiers),
  adminRoute('POST', '/realm/filters', schemas.addLinkifier, createLinkifier),
  adminRoute('PATCH', '/realm/filters/{filter_id:int}', schemas.updateLinkifier, updateLinkifier),
  adminRoute('DELETE', '/realm/filters/{filter_id:int}', schemas.removeLinkifier, deleteLinkifier),
  adminRoute('PATCH', '/realm/linkifiers', schemas.reorderLinkifiers, reorderLinkifiers),
  adminRoute('POST', '/realm/playgrounds', schemas.addCodePlayground, addPlayground),
  adminRoute('DELETE', '/realm/playgrounds/{playground_id:int}', schemas.removeCodePlayground, removePlayground),
  adminRoute('POST', '/export/realm', schemas.exportRealm, exportRealm),
  adminRoute('GET', '/export/realm', schemas.getRealmExports, getRealmExports),
  adminRoute('DELETE', '/export/realm/{export_id:int}', schemas.deleteRealmExport, deleteRealmExport),
  adminRoute('GET', '/export/realm/consents', schemas.getRealmExportConsents, getRealmExportConsents),
  atRoot(adminRoute('GET', '/user_avatars/exports/{realm_id:int}/{random}/{file_name}', schemas.getRealmExportFile, getRealmExportFile)),

  userRoute('GET', '/drafts', schemas.getDrafts, getDrafts),
  userRoute('POST', '/drafts', schemas.createDrafts, createDrafts),
  userRoute('PATCH', '/drafts/{draft_id:int}', schemas.editDraft, updateDraft),
  userRoute('DELETE', '/drafts/{draft_id:int}', schemas.deleteDraft, deleteDraft),

  userRoute('GET', '/saved_snippets', schemas.getSavedSnippets, getSavedSnippets),
  userRoute('POST', '/saved_snippets', schemas.createSavedSnippet, createSavedSnippet),
  userRoute('PATCH', '/saved_snippets/{saved_snippet_id:int}', schemas.editSavedSnippet, editSavedSnippet),
  userRoute('DELETE', '/saved_snippets/{saved_snippet_id:int}', schemas.deleteSavedSnippet, deleteSavedSnippet),

  // A bot's own storage; people are refused by the command ("Must be a bot user"), as Zulip.
  userRoute('GET', '/bot_storage', schemas.getBotStorage, getBotStorage),
  userRoute('PUT', '/bot_storage', schemas.updateBotStorage, updateBotStorage),
  userRoute('DELETE', '/bot_storage', schemas.removeBotStorage, removeBotStorage),

  userRoute('GET', '/navigation_views', schemas.getNavigationViews, getNavigationViews),
  userRoute('POST', '/navigation_views', schemas.addNavigationView, addNavigationView),
  userRoute('PATCH', '/navigation_views/{fragment:path}', schemas.editNavigationView, editNavigationView),
  userRoute('DELETE', '/navigation_views/{fragment:path}', schemas.removeNavigationView, removeNavigationView),

  userRoute('GET', '/scheduled_messages', schemas.getScheduledMessages, getScheduledMessages),
  userRoute('POST', '/scheduled_messages', schemas.createScheduledMessage, createScheduledMessage),
  userRoute('PATCH', '/scheduled_messages/{scheduled_message_id:int}', schemas.updateScheduledMessage, updateScheduledMessage),
  userRoute('DELETE', '/scheduled_messages/{scheduled_message_id:int}', schemas.deleteScheduledMessage, deleteScheduledMessage),
  userRoute('GET', '/reminders', schemas.getReminders, getReminders),
  userRoute('POST', '/reminders', schemas.createMessageReminder, createMessageReminder),
  userRoute('DELETE', '/reminders/{reminder_id:int}', schemas.deleteReminder, deleteReminder),

  humanRoute('POST', '/mobile_push/register', schemas.registerPushDevice, registerPushDevice),
  userRoute('POST', '/mobile_push/e2ee/test_notification', schemas.e2eeTestNotify, sendTestPushNotification),
  userRoute('POST', '/mobile_push/test_notification', schemas.testNotify, sendLegacyTestPushNotification),
  humanRoute('POST', '/users/me/android_gcm_reg_id', schemas.addFcmToken, addFcmToken),
  humanRoute('DELETE', '/users/me/android_gcm_reg_id', schemas.removeFcmToken, removeFcmToken),
  humanRoute('POST', '/users/me/apns_device_token', schemas.addApnsToken, addApnsToken),
  humanRoute('DELETE', '/users/me/apns_device_token', schemas.removeApnsToken, removeApnsToken),

  userRoute('POST', '/calls/provider/create', schemas.createVideoCall, createCall),
  userRoute('GET', '/calls/bigbluebutton/create', schemas.createBigBlueButtonVideoCall, createBigBlueButtonCall),
  // The link's page and its sign-in form (a page, not in Zulip's reference: its join view).
  page(atRoot(publicRoute('GET', '/calls/bigbluebutton/join', schemas.getBigBlueButtonJoin, bigBlueButtonJoinPage))),
  page(atRoot(publicRoute('POST', '/calls/bigbluebutton/join', schemas.joinBigBlueButton, joinBigBlueButton))),
  userRoute('GET', '/calls/provider/register', schemas.startVideoCallAuthorization, startCallAuthorization),
  publicRoute('GET', '/calls/provider/complete', schemas.completeVideoCallAuthorization, completeCallAuthorization),

  forIncomingWebhookBots(userRoute('POST', '/messages', schemas.sendMessage, sendMessage)),
  webhookRoute('POST', '/external/{integration}', schemas.incomingWebhook, receiveWebhook),
  userRoute('GET', '/messages', schemas.getMessages, getMessages),
  userRoute('GET', '/messages/matches_narrow', schemas.checkMessagesMatchNarrow, checkMessagesMatchNarrow),
  userRoute('GET', '/messages/{message_id:int}/read_receipts', schemas.getReadReceipts, getReadReceipts),
  userRoute('POST', '/messages/{message_id:int}/report', schemas.reportMessage, reportMessage),
  userRoute('POST', '/messages/render', schemas.renderMessage, renderMessage),
  atRoot(userRoute('GET', '/thumbnail', schemas.getThumbnail, thumbnail)),
  uploadRoute('POST', '/user_uploads', schemas.uploadFile, uploadFile),
  userRoute('GET', '/realm/emoji', schemas.getCustomEmoji, getRealmEmoji),
  uploadRoute('POST', '/realm/emoji/{emoji_name}', schemas.uploadCustomEmoji, uploadCustomEmoji),
  userRoute('DELETE', '/realm/emoji/{emoji_name}', schemas.deactivateCustomEmoji, deactivateCustomEmoji),
  atRoot(publicRoute('GET', '/user_avatars/{realm_id:int}/emoji/images/{file_name}', schemas.getPublicImage, publicImage('emoji/images'))),
  atRoot(publicRoute('GET', '/user_avatars/{realm_id:int}/avatars/{file_name}', schemas.getPublicImage, publicImage('avatars'))),
  atRoot(userRoute('GET', '/user_uploads/{realm_id:int}/{bucket}/{random}/{filename}', schemas.getFile, getFile)),
  userRoute('GET', '/user_uploads/{realm_id_str:int}/{bucket}/{random}/{filename}', schemas.getFileTemporaryUrl, getFileTemporaryUrl),
  atRoot(publicRoute('GET', '/user_uploads/temporary/{token}/{filename}', schemas.getTemporaryFile, getTemporaryFile)),
  userRoute('GET', '/attachments', schemas.getAttachments, getAttachments),
  userRoute('DELETE', '/attachments/{attachment_id:int}', schemas.removeAttachment, removeAttachment),
  userRoute('GET', '/messages/{message_id:int}', schemas.getMessage, getMessage),
  userRoute('PATCH', '/messages/{message_id:int}', schemas.updateMessage, editMessage),
  userRoute('GET', '/messages/{message_id:int}/history', schemas.getMessageHistory, getMessageHistory),
  userRoute('DELETE', '/messages/{message_id:int}', schemas.deleteMessage, deleteMessage),
  userRoute('POST', '/messages/{message_id:int}/reactions', schemas.addReaction, addReaction),
  userRoute('DELETE', '/messages/{message_id:int}/reactions', schemas.removeReaction, removeReaction),
  userRoute('POST', '/submessage', schemas.submessage, addSubmessage),
  userRoute('POST', '/messages/{message_id:int}/typing', schemas.setTypingStatusForMessageEdit, setEditTypingStatus),
  userRoute('GET', '/users/me/{stream_id:int}/topics', schemas.getStreamTopics, getTopics),
  userRoute('POST', '/mark_all_as_read', schemas.markAllAsRead, markAllAsRead),
  userRoute('POST', '/mark_stream_as_read', schemas.markStreamAsRead, markChannelAsRead),
  userRoute('POST', '/mark_topic_as_read', schemas.markTopicAsRead, markTopicAsRead),
  userRoute('POST', '/messages/flags', schemas.updateMessageFlags, updateFlags),
  userRoute('POST', '/messages/flags/narrow', schemas.updateMessageFlagsForNarrow, updateFlagsForNarrow),
];
