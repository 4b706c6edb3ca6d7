// Reminder endpoints (Zulip's reminders: a direct message from the notification bot to oneself about
// a message, at a chosen time).
import type * as schemas from '../../schemas/index.js';
import type { Params } from '../http/validation.js';
import type { UserRequest } from '../http/route.js';

export async function getReminders(request: UserRequest) {
  return { reminders: await request.realm.ask('reminders.list', request.user.userId, {}) };
}

export const createMessageReminder = (request: UserRequest, params: Params<typeof schemas.createMessageReminder>) =>
  request.realm.ask('reminders.create', request.user.userId, {
    messageId: params.message_id,
    deliverAt: params.scheduled_delivery_timestamp,
    note: params.note,
    client: request.client,
  });

export const deleteReminder = (request: UserRequest, params: Params<typeof schemas.deleteReminder>) =>
  request.realm.ask('reminders.delete', request.user.userId, { id: params.reminder_id });
