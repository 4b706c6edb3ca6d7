// The realm's outboxes as its notifier sees them (realm/notifier.ts): one read of everything due —
// push notifications, missed-message e-mails, outgoing-webhook bots' requests — and one write that
// records what became of a pass.
import { readCommand, writeCommand } from '../context.js';
import { dueEmails, settleEmails, type BatchPart, type DueEmail, type EmailSettlement } from './missedEmails.js';
import { duePushes, settlePushes, type PushDelivery, type PushSettlement } from './notifications.js';
import { dueServices, settleServices, type DueServices, type ServiceOutcome } from './serviceBots.js';

/** The notifier's two lanes, each one pass at a time: the push relay and the mail server, and
 * outgoing-webhook bots' services (a slow service holds up no notification). */
export type NotifierLane = 'relay' | 'services';

/** What one pass of the notifier is to do. */
export interface DueWork {
  push: PushDelivery[];
  /** Outbox rows to drop unsent. */
  dropped: number[];
  emails: DueEmail[];
  /** Batches with nothing left to tell. */
  droppedEmails: BatchPart[];
  /** Outgoing-webhook bots' deliveries. */
  services: DueServices;
  /** When the next row falls due (milliseconds on the server's clock), if any is waiting. */
  next: number | null;
}

export interface Settlement extends EmailSettlement, PushSettlement {
  /** What the services of outgoing-webhook bots answered (or why they did not). */
  services: ServiceOutcome[];
  /** The deliveries `due` found to fail or drop without a request, settled with the rest. */
  serviceFailures: DueServices['failures'];
  servicesDropped: number[];
}

/** The earliest of times, any of which may be unset. */
const earliest = (...times: (number | null)[]): number | null => times.reduce<number | null>((soonest, time) => (time === null ? soonest : soonest === null ? time : Math.min(soonest, time)), null);

export const notificationCommands = {
  /** What is due now in one of the notifier's lanes, ready to send (the lane's read). */
  'notifications.due': readCommand((ctx, input: { lane: NotifierLane }): DueWork => {
    const nowMs = ctx.config.clock.now();
    if (input.lane === 'services') {
      const services = dueServices(ctx, nowMs);
      return { push: [], dropped: [], emails: [], droppedEmails: [], services, next: services.next };
    }
    const mail = dueEmails(ctx, nowMs);
    const pushes = duePushes(ctx, nowMs);
    const services: DueServices = { requests: [], failures: [], dropped: [], next: null };
    return { push: pushes.push, dropped: pushes.dropped, emails: mail.emails, droppedEmails: mail.dropped, services, next: earliest(mail.next, pushes.next) };
  }),

  /** Records what became of a pass's notifications, e-mails and requests. */
  'notifications.settle': writeCommand((ctx, input: Settlement) => {
    settlePushes(ctx, input);
    settleEmails(ctx, input);
    settleServices(ctx, input.services, input.serviceFailures, input.servicesDropped);
    return {};
  }),
};
