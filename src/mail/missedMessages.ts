// The missed-message e-mail (Zulip's missed_message email): one e-mail per batch, a section per
// conversation with each message under its sender's name and a link to the conversation, and a
// one-click unsubscribe link (also in List-Unsubscribe, with List-Unsubscribe-Post, RFC 8058).
import { escapeAttr, escapeText } from '../markdown/html.js';
import type { Mail } from './transport.js';

export interface MissedMessage {
  senderName: string;
  /** The message as text and as HTML; null when the e-mail may not carry content. */
  text: string | null;
  html: string | null;
}

export interface MissedConversation {
  /** "#Verona > greetings", "DMs with King Hamlet", "Group DMs with …". */
  title: string;
  /** Where the conversation is read. */
  url: string;
  messages: MissedMessage[];
}

export interface MissedMail {
  to: string;
  realmName: string;
  realmUrl: string;
  conversations: MissedConversation[];
  unsubscribeUrl: string;
}

const withoutContent = (message: MissedMessage) => `${message.senderName} sent you a message.`;

export function missedMessageMail(input: MissedMail): Mail {
  const { conversations } = input;
  const subject = conversations.length === 1 ? conversations[0]!.title : `New messages in ${input.realmName}`;
  const textOf = (message: MissedMessage) => (message.text === null ? withoutContent(message) : `${message.senderName}: ${message.text}`);
  const text = [
    ...conversations.map((conversation) => [conversation.title, ...conversation.messages.map(textOf), `Reply or view: ${conversation.url}`].join('\n\n')),
    `You are receiving this because you were mentioned or sent a direct message in ${input.realmName} (${input.realmUrl}) while you were away.\nUnsubscribe from these e-mails: ${input.unsubscribeUrl}`,
  ].join('\n\n---\n\n');
  const htmlOf = (message: MissedMessage) =>
    message.html === null ? `<p>${escapeText(withoutContent(message))}</p>` : `<div><p><b>${escapeText(message.senderName)}</b>:</p>${message.html}</div>`;
  const html =
    `<!doctype html><html><body>` +
    conversations
      .map((conversation) => `<h2><a href="${escapeAttr(conversation.url)}">${escapeText(conversation.title)}</a></h2>${conversation.messages.map(htmlOf).join('')}<p><a href="${escapeAttr(conversation.url)}">Reply or view in ${escapeText(input.realmName)}</a></p>`)
      .join('<hr>') +
    `<hr><p style="color:#666">You are receiving this because you were mentioned or sent a direct message in ${escapeText(input.realmName)} while you were away. ` +
    `<a href="${escapeAttr(input.unsubscribeUrl)}">Unsubscribe</a></p></body></html>`;
  return {
    to: input.to,
    subject,
    text,
    html,
    headers: { 'List-Unsubscribe': `<${input.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
