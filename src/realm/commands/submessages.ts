// Submessages (POST /submessage, Zulip's zerver/views/submessage.py and actions/submessage.py):
// the widget a /poll or /todo message gets when sent, and the widget events its readers add. They
// are part of the stored message; `submessage` events go to everyone who can see it.
import { errors } from '../../errors.js';
import type { SubmessageEvent } from '../../events/catalogue.js';
import type { MessageRecord, SubmessageRecord } from '../../messages/records.js';
import { widgetEventProblem, widgetOf, widgetTypeOf } from '../../messages/widgets.js';
import { writeCommand, type CommandContext } from '../context.js';
import { accessibleMessage, messageAudience } from './messageAccess.js';

export interface SubmessageInput {
  messageId: number;
  msgType: string;
  content: string;
}

/** Gives a new message the widget its content asks for (Zulip's do_widget_post_save_actions), in
 * the record about to be saved; a message that is no widget is left as it is. */
export function attachWidget(ctx: CommandContext, message: MessageRecord): void {
  const widget = widgetOf(message.content);
  if (!widget) return;
  message.submessages = [{ id: ctx.store.nextId('submessage'), senderId: message.senderId, msgType: 'widget', content: JSON.stringify(widget) }];
}

/** The message's widget type, when its first submessage is its sender's widget. */
function widgetTypeOfMessage(message: MessageRecord) {
  const first = message.submessages?.[0];
  return first && first.senderId === message.senderId && first.msgType === 'widget' ? widgetTypeOf(first.content) : null;
}

export const submessageCommands = {
  /** Zulip's process_submessage: on a message the user can read that is a widget, an event that
   * widget accepts (the question or title only from the widget's author). */
  'submessages.add': writeCommand((ctx, input: SubmessageInput) => {
    const user = ctx.user;
    const { message } = accessibleMessage(ctx, user, input.messageId);
    const widgetType = widgetTypeOfMessage(message);
    if (!widgetType) throw errors.badRequest('You cannot attach a submessage to this message.');
    if (input.msgType !== 'widget') throw errors.badRequest('Invalid msg_type');
    let data: unknown;
    try {
      data = JSON.parse(input.content);
    } catch {
      throw errors.badRequest('Invalid json for submessage');
    }
    const problem = widgetEventProblem(widgetType, data, message.senderId === user.id);
    if (problem) throw errors.badRequest(problem);
    const submessage: SubmessageRecord = { id: ctx.store.nextId('submessage'), senderId: user.id, msgType: input.msgType, content: input.content };
    ctx.saveMessage({ ...message, submessages: [...(message.submessages ?? []), submessage] }, message);
    const event: SubmessageEvent = {
      type: 'submessage',
      msg_type: submessage.msgType,
      content: submessage.content,
      submessage_id: submessage.id,
      sender_id: user.id,
      message_id: message.id,
    };
    ctx.emit(event, messageAudience(ctx, message, user.id));
    return {};
  }),
};
