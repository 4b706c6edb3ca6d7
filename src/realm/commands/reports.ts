// Moderation reports (Zulip's message reports): a user reports a message they can read; the
// notification bot posts the report to the organization's moderation request channel, in a topic
// named for the reported user, saying who reported whom, why, and quoting the message behind a
// spoiler. Refused while the organization has no such channel.
import { errors } from '../../errors.js';
import { messageUrl } from '../../messages/links.js';
import { globalTime, listed, messageLinkSyntax, silentMention, truncated, unusedFence } from '../../messages/noticeText.js';
import type { MessageRecord } from '../../messages/records.js';
import { realmUrl } from '../../organization/records.js';
import { realmProperty } from '../../organization/settings.js';
import type { UserRecord } from '../../users/records.js';
import { writeCommand, type ReadContext } from '../context.js';
import { limits } from './limits.js';
import { accessibleMessage } from './messageAccess.js';
import { sendMessage } from './messages.js';

/** Zulip's report types and how a report names them. */
export const reportTypes = { spam: 'Spam', harassment: 'Harassment', inappropriate: 'Inappropriate content', norms: 'Violates community norms', other: 'Other reason' } as const;

export type ReportType = keyof typeof reportTypes;

/** Zulip's MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

/** Room left for the quoted message: the description and the report's own words must fit too. */
const SNIPPET_LENGTH = limits.max_message_length - MAX_REPORT_DESCRIPTION_LENGTH - 500;

export interface ReportInput {
  messageId: number;
  reportType: ReportType;
  description: string;
}

const mentionOf = (ctx: ReadContext, id: number): string => silentMention(ctx.state.users.get(id) ?? { fullName: 'Unknown user', id });

/** Who reported whose message, and to whom it was sent when that is not a channel. */
function header(ctx: ReadContext, reporter: UserRecord, message: MessageRecord): string {
  const start = `${silentMention(reporter)} reported a message sent by ${mentionOf(ctx, message.senderId)}`;
  const at = ` at ${globalTime(message.timestamp)}.`;
  if (message.channelId !== null) return `${start}${at}`;
  const others = message.participants.filter((id) => id !== message.senderId);
  if (others.length > 1) return `${start} to ${listed(others.map((id) => mentionOf(ctx, id)))}${at}`;
  // In a one-on-one conversation the other party is named only when the reporter sent the message.
  if (message.senderId !== reporter.id) return `${start}${at}`;
  return `${start} to ${mentionOf(ctx, others[0] ?? reporter.id)}${at}`;
}

function reportContent(ctx: ReadContext, reporter: UserRecord, message: MessageRecord, input: ReportInput): string {
  const channel = message.channelId === null ? undefined : ctx.state.channels.get(message.channelId);
  const original = channel ? `Original message at ${messageLinkSyntax(channel.name, message.topic, message.id)}` : `[Original message](${messageUrl(realmUrl(ctx.state.realm, ctx.config), message, undefined)})`;
  const snippet = truncated(message.content, SNIPPET_LENGTH);
  const fence = unusedFence(snippet);
  return `${header(ctx, reporter, message)}\n\`\`\`quote\n**${reportTypes[input.reportType]}**. ${input.description}\n\`\`\`\n\n${fence} spoiler ${original}\n${snippet}\n${fence}`;
}

export const reportCommands = {
  'reports.send': writeCommand((ctx, input: ReportInput) => {
    if (input.description.length > MAX_REPORT_DESCRIPTION_LENGTH) throw errors.badRequest(`description is too long (limit: ${MAX_REPORT_DESCRIPTION_LENGTH} characters)`);
    if (input.reportType === 'other' && input.description === '') throw errors.badRequest('An explanation is required.');
    const channel = ctx.state.channels.get(realmProperty(ctx.state, 'moderation_request_channel_id'));
    const botId = ctx.state.realm.notificationBotId;
    const bot = botId === null ? undefined : ctx.state.users.get(botId);
    if (!channel || channel.isArchived || !bot) throw errors.badRequest('Moderation request channel must be specified to enable message reporting.');
    const { message } = accessibleMessage(ctx, ctx.user, input.messageId);
    const policy = channel.topicsPolicy === 'inherit' ? ctx.state.realm.topicsPolicy : channel.topicsPolicy;
    const reported = ctx.state.users.get(message.senderId);
    const topic = policy === 'empty_topic_only' ? '' : `${reported?.fullName ?? 'Unknown user'} moderation`;
    sendMessage(ctx, bot, { type: 'stream', to: [channel.id], topic, content: reportContent(ctx, ctx.user, message, input), readBySender: true, client: 'Internal', system: true });
    return {};
  }),
};
