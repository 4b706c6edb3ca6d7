// A realm's notifiers, one per lane: send what the outboxes hold (push notifications and
// missed-message e-mails; outgoing-webhook bots' requests), outside the actor's mailbox. A pass reads
// what is due in its lane (a read command), talks to the relay, the mail server or the bots'
// services, and records the outcome (a write command); the next pass runs when a write queues more,
// or when the earliest retry falls due. One pass per lane runs at a time, so no notification is sent
// twice by the same server, and a bot's service that answers slowly holds up no notification.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { sendMail } from '../mail/transport.js';
import { postToRelay } from '../push/relay.js';
import { postToService, ServiceUnreachable } from '../integrations/outgoingHttp.js';
import type { DueWork, NotifierLane, Settlement } from './commands/outbox.js';

/** How long a pass that could not even read or record waits before the next. */
const RETRY_AFTER_BREAKAGE_MS = 60_000;
/** Far times are reached in steps (setTimeout's limit is ~24.8 days). */
const MAX_DELAY_MS = 24 * 3600 * 1000;

/** The realm commands a pass uses, for its lane. */
export interface NotifierRealm {
  due(lane: NotifierLane): Promise<DueWork>;
  settle(outcome: Settlement): Promise<unknown>;
}

export class Notifier {
  private running = false;
  private again = false;
  private stopped = false;
  private cancel: (() => void) | undefined;
  /** When the armed timer fires (milliseconds on the clock), if one is armed. */
  private armedAt: number | undefined;
  /** The pass under way, if any. */
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Pick<Config, 'clock' | 'pushRelay' | 'mail' | 'log' | 'outgoingWebhooks'>,
    private readonly realm: NotifierRealm,
    private readonly lane: NotifierLane,
  ) {}

  /** Looks at the outbox now (once the pass under way, if any, is over). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.current = this.run();
  }

  /** Something falls due at `at` (milliseconds on the clock): a pass runs then, unless one is
   * already due by then. A pass under way looks again once it is over (it may have read the outbox
   * before the row was written). */
  wake(at: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.armedAt !== undefined && this.armedAt <= at) return;
    if (at <= this.config.clock.now()) this.kick();
    else this.arm(at);
  }

  /** Stops looking; resolves once the pass under way (bounded by the relay's timeout) has recorded
   * what the relay took, so a graceful shutdown sends nothing twice. */
  stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    return this.current;
  }

  private async run(): Promise<void> {
    this.running = true;
    this.disarm();
    let next: number | null = null;
    try {
      do {
        this.again = false;
        next = await this.pass();
      } while (this.again && !this.stopped);
    } catch (error) {
      this.config.log.error({ err: error }, 'notifications not sent');
      next = this.config.clock.now() + RETRY_AFTER_BREAKAGE_MS;
    } finally {
      this.running = false;
    }
    this.arm(next);
  }

  private disarm(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.armedAt = undefined;
  }

  private arm(at: number | null): void {
    this.disarm();
    if (at === null || this.stopped) return;
    const clock: Clock = this.config.clock;
    const delay = Math.min(Math.max(at - clock.now(), 0), MAX_DELAY_MS);
    this.armedAt = clock.now() + delay;
    this.cancel = clock.after(delay, () => {
      this.armedAt = undefined;
      this.kick();
    });
  }

  /** Sends what is due; returns when the next row falls due. */
  private async pass(): Promise<number | null> {
    const work = await this.realm.due(this.lane);
    const { services } = work;
    const outcome: Settlement = {
      delivered: [],
      failed: [],
      dropped: work.dropped,
      mailed: [...work.droppedEmails],
      mailFailed: [],
      services: [],
      serviceFailures: services.failures,
      servicesDropped: services.dropped,
    };
    const pushes = work.push.map(async ({ id, path, body }) => {
      try {
        await postToRelay(this.config.pushRelay, path, body);
        outcome.delivered.push(id);
      } catch {
        outcome.failed.push(id);
      }
    });
    const mails = work.emails.map(async ({ userId, messageIds, mail }) => {
      try {
        await sendMail(this.config.mail!, mail);
        outcome.mailed.push({ userId, messageIds });
      } catch (error) {
        this.config.log.warn({ err: error, user: userId }, 'missed-message e-mail not sent');
        outcome.mailFailed.push(userId);
      }
    });
    const posts = services.requests.map(async ({ id, request }) => {
      try {
        const answer = await postToService(request, this.config.outgoingWebhooks);
        outcome.services.push({ id, kind: 'answered', ...answer });
      } catch (error) {
        // Whatever went wrong with one service is that delivery's outcome, never the pass's.
        const unreachable = error instanceof ServiceUnreachable ? error : new ServiceUnreachable(`The request failed: ${String(error)}`, false);
        outcome.services.push({ id, kind: 'unreachable', reason: unreachable.message, retry: unreachable.retry });
      }
    });
    // Pushes and e-mails are recorded as soon as they are out, not after the slowest bot's service
    // answers: a restart meanwhile re-sends none of them.
    await Promise.all([...pushes, ...mails]);
    const { services: answered, serviceFailures, servicesDropped, ...sent } = outcome;
    if (Object.values(sent).some((list) => list.length > 0)) await this.realm.settle({ ...sent, services: [], serviceFailures: [], servicesDropped: [] });
    await Promise.all(posts);
    if ([answered, serviceFailures, servicesDropped].some((list) => list.length > 0)) {
      await this.realm.settle({ delivered: [], failed: [], dropped: [], mailed: [], mailFailed: [], services: answered, serviceFailures, servicesDropped });
    }
    return work.next;
  }
}
