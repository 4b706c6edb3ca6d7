// The realm actor: the only writer of its realm's data. Commands (plain, serializable objects)
// are taken from a mailbox one at a time. A write runs inside LMDB's next write batch (commands of
// many realms share one commit), in a child transaction of its own unless it checks first, and is
// answered only once that batch is durable (in a cluster, once the realm's log holds it); a read
// waits until every earlier write of the realm is durable in LMDB, then runs.
import { nowSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { ApiError, errors } from '../errors.js';
import type { EventSink } from '../events/queues.js';
import type { FieldsCommand, RealmHandle } from './handle.js';
import { fieldsOf, type JsonFields } from './jsonFields.js';
import { RolledBackWithBatch, StorageError, type Store, type WriteOptions } from '../store/store.js';
import { commands, type CommandName, type InputOf, type OutputOf } from './commands/index.js';
import { CommandContext, type CommandDef } from './context.js';
import { DeliveryTimer } from './deliveryTimer.js';
import { Notifier, type NotifierRealm } from './notifier.js';
import { Exporter } from './exporter.js';
import type { FileStorage } from '../files/storage.js';
import type { RealmRecord } from '../organization/records.js';
import type { RealmState } from '../organization/state.js';
import { PresenceTable } from '../users/presence.js';
import { loadRealmState } from './load.js';
import type { PresenceKeeper, QueueHolders } from './links.js';
import { IdsExhausted, LogRefusal, type IdSupply, type RealmLog } from './log.js';
import type { Change } from '../store/changes.js';

/** A command as it travels through the mailbox: plain data plus the promise to settle. */
interface Envelope {
  name: CommandName;
  /** The requesting user; null for the server's own commands. */
  userId: number | null;
  input: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Work of the server's own that must see the realm between two commands (a snapshot's start). */
interface QuietEnvelope {
  quiet: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How long a scheduled message that could not even be marked failed waits to be tried again. */
const RETRY_AFTER_BREAKAGE_MS = 60_000;
/** The least wait before a scheduled message refused for now is tried again. */
const MIN_RETRY_MS = 1000;
/** How long after a change a realm's presence is saved (one write for every report in between).
 * Presence is a hot path kept in memory: a crash loses at most this much of it, a graceful
 * shutdown nothing. */
export const PRESENCE_SAVE_INTERVAL_MS = 5 * 60_000;

/** What ties an actor to a cluster (nothing, standalone). */
export interface RealmLinks {
  log?: RealmLog;
  sink?: EventSink;
  ids?: IdSupply;
  presence?: PresenceKeeper;
  holders?: QueueHolders;
  /** Where data exports are stored (none: exports stay pending, as in the management CLI). */
  files?: FileStorage;
  /** Told once a committed write changed what is derived from the realm's memory (not for rows
   * nothing derived reads: attachments, scheduled messages), and when the memory is reloaded: what
   * another thread or node derived from it (credentials, the rendering context) is derived again.
   * The write is answered once what it returns settles (other nodes were told). */
  memoryChanged?: () => void | Promise<void>;
}

export class RealmActor implements RealmHandle {
  private state: RealmState;
  private readonly mailbox: (Envelope | QuietEnvelope)[] = [];
  private draining = false;
  /** The mailbox's loop, while `draining`. */
  private running: Promise<void> = Promise.resolve();
  private lastWrite: Promise<unknown> = Promise.resolve();
  /** Writes whose answer is not out yet: while there are none, a read runs at once, without
   * waiting on a promise (most requests are reads). */
  private writesUnsettled = 0;
  /** Set when a command failed with an unexpected error, possibly half-way through changing memory. */
  private stale = false;
  /** Delivers the realm's scheduled messages at their time. */
  private readonly deliveries: DeliveryTimer;
  /** Sends the realm's notifications after commit, outside the mailbox. */
  /** The push relay's and mail's lane, and the bots' services' (a slow service holds up neither). */
  private readonly notifiers: Notifier[];
  /** Writes the realm's requested data exports after commit, outside the mailbox. */
  private readonly exporter: Exporter | undefined;
  /** Who was last seen when (memory only; saved PRESENCE_SAVE_INTERVAL_MS after a change and at stop). */
  private readonly presence: PresenceTable;
  /** Cancels the pending presence save, if one is armed. */
  private cancelPresenceSave: (() => void) | undefined;
  private timersStopped = false;

  /** Where committed writes go besides LMDB (a cluster's log), if anywhere. */
  private readonly log: RealmLog | undefined;
  /** Told when the realm's memory changed (RealmLinks.memoryChanged). */
  private readonly memoryChanged: (() => void | Promise<void>) | undefined;
  /** Where emissions go: the server's queues, and in a cluster every node's. */
  private readonly sink: EventSink;
  /** Where IDs come from in a cluster (else the store's counters). */
  private readonly ids: IdSupply | undefined;
  /** Where a cluster keeps presence besides this memory (standalone: nowhere). */
  private readonly presenceKeeper: PresenceKeeper | undefined;
  /** Who holds the realm's event queues (standalone: this server's queues). */
  private readonly holders: QueueHolders;
  /** The previous write's append, settled: a write with nothing to log is answered after it. */
  private lastAppend: Promise<unknown> = Promise.resolve();
  /** Set once the log refused a write: the local copy has a change the log does not, and the realm
   * is no longer this node's; every later command is refused. */
  private fenced = false;

  constructor(
    private readonly store: Store,
    private readonly config: Config,
    /** This server's queues (standalone), or what stands for them where the realm runs apart from
     * them (the realm thread); a cluster's links replace both parts. */
    local: EventSink & QueueHolders,
    realm: RealmRecord,
    links: RealmLinks = {},
  ) {
    this.log = links.log;
    this.memoryChanged = links.memoryChanged;
    this.sink = links.sink ?? local;
    this.ids = links.ids;
    this.presenceKeeper = links.presence;
    this.holders = links.holders ?? local;
    this.state = loadRealmState(store, realm);
    this.deliveries = new DeliveryTimer(config.clock, () => void this.deliverDue());
    this.deliveries.arm(this.state.nextDelivery());
    this.presence = links.presence ? new PresenceTable(links.presence.saved, true) : new PresenceTable(store.savedPresence(realm.id));
    const outboxes: NotifierRealm = {
      due: (lane) => this.ask('notifications.due', null, { lane }),
      settle: (outcome) => this.ask('notifications.settle', null, outcome),
    };
    this.notifiers = [new Notifier(config, outboxes, 'relay'), new Notifier(config, outboxes, 'services')];
    // What a previous run left in the outbox goes out now.
    if ([store.notificationOutbox, store.emailBatches, store.serviceOutbox].some((table) => !table.ofRealm(realm.id).next().done)) for (const notifier of this.notifiers) notifier.kick();
    this.exporter = links.files
      ? new Exporter(config, store, links.files, realm.id, {
          due: () => this.ask('realmExport.due', null, {}),
          settle: (outcomes, expired) => this.ask('realmExport.settle', null, { outcomes, expired }),
          readPoint: () => this.atQuietPoint(() => store.env.useReadTransaction()),
        })
      : undefined;
    // An export a previous run left pending is written now; kept ones are expired in time.
    if (!store.realmExports.ofRealm(realm.id).next().done) this.exporter?.kick();
  }

  /** The realm's record, for the HTTP layer (its ID and subdomain); read-only outside commands. */
  get realm(): Readonly<RealmRecord> {
    return this.state.realm;
  }

  ask<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): Promise<OutputOf<N>> {
    try {
      return Promise.resolve(this.answer(name, userId, input));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** As `ask`, the answer encoded as JSON fields here (for another thread or node, whose caller
   * would not learn why an encoding failed: logged here). */
  async askFields<N extends FieldsCommand>(name: N, userId: number | null, input: InputOf<N>): Promise<JsonFields> {
    const output = await this.ask(name, userId, input);
    try {
      return fieldsOf(output);
    } catch (error) {
      this.config.log.error({ err: error, realm: this.state.realm.id, command: name }, 'answer could not be encoded');
      throw errors.internal();
    }
  }

  /** As `ask`, but a command that runs at once answers (or throws) at once, without a promise: an
   * instant command, or a read or live command while the mailbox is empty and no write is under
   * way (exactly when the mailbox would have run it before returning). */
  answer<N extends CommandName>(name: N, userId: number | null, input: InputOf<N>): OutputOf<N> | Promise<OutputOf<N>> {
    const started = performance.now();
    const def = commands[name] as CommandDef<unknown, unknown>;
    if (!this.stale && !this.fenced && (def.mode === 'instant' || (def.mode !== 'write' && !this.draining && this.mailbox.length === 0 && this.writesUnsettled === 0))) {
      try {
        const output = this.afterPresenceKept(this.runNow(def, name, userId, input) as OutputOf<N>);
        this.measure(name, 'ok', started);
        return output;
      } catch (error) {
        this.measure(name, 'error', started);
        throw error;
      }
    }
    return new Promise<OutputOf<N>>((resolve, reject) => {
      const answer = (value: unknown) => {
        this.measure(name, 'ok', started);
        resolve(value as OutputOf<N>);
      };
      const refuse = (error: unknown) => {
        this.measure(name, 'error', started);
        reject(error);
      };
      this.mailbox.push({ name, userId, input, resolve: answer, reject: refuse });
      if (!this.draining) this.running = this.drain();
    });
  }

  private measure(name: CommandName, outcome: 'ok' | 'error', started: number): void {
    this.config.metrics.command(name, outcome, (performance.now() - started) / 1000);
  }

  /** Runs `fn` once every earlier write is durable (and, in a cluster, in the log), before any later
   * command starts. */
  atQuietPoint<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.mailbox.push({ quiet: fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) this.running = this.drain();
    });
  }

  /** Commands waiting to run. */
  get waiting(): number {
    return this.mailbox.length;
  }

  /** Resolves once every write accepted so far is durable. It waits for the mailbox's loop, which
   * may wait on more than writes (a reload, IDs taken over the network): awaiting a settled write
   * again and again, as it did, kept the event loop from ever reaching what the loop waited on. */
  async idle(): Promise<void> {
    do {
      while (this.draining) await this.settled(this.running);
      await this.settled(this.lastWrite);
    } while (this.draining);
  }

  /** Stops serving the realm (it left this node): every command from now on is refused. */
  retire(): void {
    this.fenced = true;
    this.stopTimers();
  }

  /** Stops delivering scheduled messages and saving presence on a timer (the server is shutting
   * down; `savePresence` saves it a last time); writes still run. */
  stopTimers(): void {
    this.deliveries.stop();
    for (const notifier of this.notifiers) void notifier.stop();
    void this.exporter?.stop();
    this.timersStopped = true;
    this.cancelPresenceSave?.();
  }

  /** Resolves once the notifications being sent when the timers stopped are recorded. */
  notificationsSettled(): Promise<void> {
    return Promise.all([...this.notifiers.map((notifier) => notifier.stop()), this.exporter?.stop()]).then(() => undefined);
  }

  /** Arms the presence save once presence changed (no timer while nothing changes). */
  private armPresenceSave(): void {
    if (this.cancelPresenceSave || this.timersStopped || !this.presence.hasChanges) return;
    this.cancelPresenceSave = this.config.clock.after(PRESENCE_SAVE_INTERVAL_MS, () => {
      this.cancelPresenceSave = undefined;
      void this.savePresence();
    });
  }

  /** Saves the realm's presence table, if it changed since it was last saved. */
  async savePresence(): Promise<void> {
    const snapshot = this.presence.takeSnapshot();
    if (!snapshot) return;
    await this.store.savePresence(this.state.realm.id, snapshot).catch((error: unknown) => this.config.log.error({ err: error, realm: this.state.realm.id }, 'presence not saved'));
  }

  /** Sends every scheduled message whose time has come, one command each, so that one failing
   * unexpectedly (logged, rolled back) is marked failed without holding back the others. One
   * refused for now (an answer a client would retry after its Retry-After: the realm taking IDs, a
   * batch rolled back, the disk) stays due and is tried again after that wait. */
  private async deliverDue(): Promise<void> {
    const now = nowSeconds(this.config.clock);
    for (const { id, senderId } of this.state.dueDeliveries(now)) {
      if (this.deliveries.isStopped) return;
      await this.ask('scheduled.deliver', null, { id, senderId })
        .catch((error: unknown) => {
          const retryAfter = error instanceof ApiError ? error.headers['Retry-After'] : undefined;
          if (retryAfter === undefined) return this.ask('scheduled.fail', null, { id, senderId, reason: 'Internal server error' });
          const seconds = Number(retryAfter);
          this.deliveries.holdOff(Number.isFinite(seconds) ? Math.max(seconds * 1000, MIN_RETRY_MS) : MIN_RETRY_MS);
          return undefined;
        })
        // Should even marking a message failed fail, it is retried later rather than at once.
        .catch(() => this.deliveries.holdOff(RETRY_AFTER_BREAKAGE_MS));
    }
    this.deliveries.arm(this.state.nextDelivery());
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (let envelope = this.mailbox.shift(); envelope; envelope = this.mailbox.shift()) {
        if ('quiet' in envelope) {
          if (this.writesUnsettled > 0) await this.settled(this.lastWrite);
          try {
            envelope.resolve(envelope.quiet());
          } catch (error) {
            envelope.reject(error);
          }
          continue;
        }
        const def = commands[envelope.name] as CommandDef<unknown, unknown>;
        if (this.fenced) {
          envelope.reject(errors.realmMoved());
          continue;
        }
        if (this.stale) await this.reload();
        if (def.mode === 'write') {
          if (this.ids && !this.ids.ready(this.state.realm.id)) await this.ids.topUp(this.state.realm.id).catch((error: unknown) => this.config.log.error({ err: error, realm: this.state.realm.id }, 'no IDs'));
          this.writesUnsettled++;
          // write() settles its envelope itself and never rejects.
          this.lastWrite = this.write(def, envelope).finally(() => this.writesUnsettled--);
        } else {
          // (Awaiting even a settled promise would yield: a read with no write under way runs now.)
          if (this.writesUnsettled > 0) await this.settled(this.lastWrite);
          // A write it waited for may have been rolled back after changing memory.
          if (this.stale) await this.reload();
          this.inMemory(def, envelope);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** A read, or a live command whose events (nothing for reads) go out at once. */
  private inMemory(def: CommandDef<unknown, unknown>, envelope: Envelope): void {
    try {
      envelope.resolve(this.afterPresenceKept(this.runNow(def, envelope.name, envelope.userId, envelope.input)));
    } catch (error) {
      envelope.reject(error);
    }
  }

  /** Runs a command that is not a write against memory; a read's or live command's events (nothing
   * for reads) go out at once. Throws what `failure` makes of an error. */
  private runNow(def: CommandDef<unknown, unknown>, name: CommandName, userId: number | null, input: unknown): unknown {
    try {
      const ctx = this.context(userId);
      const output = def.run(ctx, input);
      if (def.mode !== 'instant') {
        this.sink.publish(this.state.realm.id, ctx.emitted);
        this.armPresenceSave();
      }
      return output;
    } catch (error) {
      throw this.failure(error, name);
    }
  }

  /** A command's output once the presence it changed is kept where the cluster keeps it (at once
   * when it changed none, or standalone). Presence is not worth failing a command for: a record
   * not kept is logged, and the next report keeps it. */
  private afterPresenceKept<T>(output: T): T | Promise<T> {
    const recent = this.presence.takeRecent();
    if (!this.presenceKeeper || recent.length === 0) return output;
    const realmId = this.state.realm.id;
    return this.presenceKeeper
      .keep(realmId, recent)
      .catch((error: unknown) => this.config.log.error({ err: error, realm: realmId }, 'presence not kept in the cluster'))
      .then(() => output);
  }

  /** Events are published once the write may be answered (its commit: standalone, LMDB's batch
   * made durable; in a cluster, the log append); the queues get them once the answer is written,
   * in the same turn of the event loop, so a client that reads its queue once it has the answer
   * finds the events of its own change there (EventQueues.publish). Resolves, never rejecting,
   * once the write is settled: durable in LMDB too, for the reads that follow. */
  private write(def: CommandDef<unknown, unknown>, envelope: Envelope): Promise<void> {
    const ctx = this.context(envelope.userId);
    const started = performance.now();
    const run = () => {
      // An earlier write of the realm was rolled back after it changed memory: this one, asked
      // before that was known, would run against what was rolled back.
      if (this.stale) throw errors.rolledBack();
      // The log refused an earlier write: this copy takes no more.
      if (this.fenced) throw errors.realmMoved();
      return def.run(ctx, envelope.input);
    };
    // LMDB dropped the command's writes: memory follows. Told inside the batch, before a later
    // write of the realm runs; again with the refusal (a batch whose commit failed is told then).
    const onRollBack = () => {
      if (ctx.changedMemory) this.stale = true;
    };
    const { answered, settled } = this.commit(run, { checksFirst: def.checksFirst === true, onRollBack });
    answered.then(
      (output) => {
        this.config.metrics.commit((performance.now() - started) / 1000);
        const told = ctx.changedDerived ? this.memoryChanged?.() : undefined;
        this.sink.publish(this.state.realm.id, ctx.emitted);
        if (ctx.scheduleChanged) this.deliveries.arm(this.state.nextDelivery());
        if (ctx.notifyAt !== undefined) for (const notifier of this.notifiers) notifier.wake(ctx.notifyAt);
        if (ctx.exportRequested) this.exporter?.kick();
        this.armPresenceSave();
        const answer = this.afterPresenceKept(output);
        envelope.resolve(told ? told.then(() => answer) : answer);
      },
      (error: unknown) => {
        onRollBack();
        envelope.reject(this.failure(error, envelope.name));
      },
    );
    return this.settled(settled);
  }

  /** Runs a write in LMDB's next batch (a command that `checksFirst` without a child transaction of
   * its own): `answered` with its result once the write is committed, `settled` once LMDB's batch
   * is durable as well. Standalone, LMDB is the commit. With a log, the log is: the
   * write's changes are appended (after the previous write's) as soon as its batch has run, and it
   * is answered once the log holds them, while LMDB makes the batch durable (this
   * node's copy is rebuilt from the log unless it was handed over cleanly). */
  private commit(run: () => unknown, options: WriteOptions): { answered: Promise<unknown>; settled: Promise<unknown> } {
    const log = this.log;
    if (!log) {
      const written = this.store.write(run, options);
      return { answered: written, settled: written };
    }
    const realmId = this.state.realm.id;
    let appended: Promise<void> | undefined;
    let answer!: { resolve(outcome: Promise<unknown>): void; reject(error: unknown): void };
    const answered = new Promise<unknown>((resolve, reject) => (answer = { resolve, reject }));
    const committed = this.store.recordedWrite(run, {
      ...options,
      ids: this.ids?.sourceFor(realmId),
      recorded: (changes, result) => {
        appended = this.append(log, realmId, changes);
        answer.resolve(appended.then(() => result));
      },
    });
    // A write that never ran in its batch (it failed, or the batch did) is answered with why; one
    // that ran is answered by the log alone.
    committed.catch((error: unknown) => {
      if (!appended) answer.reject(error);
    });
    const settled = committed.then(
      () => appended,
      async (error: unknown) => {
        // In the log but not in this copy: the copy can serve the realm no more.
        if (appended && (await appended.then(() => true, () => false))) {
          this.fenced = true;
          log.abandon(realmId);
        }
        throw error;
      },
    );
    return { answered, settled };
  }

  /** Appends a write's changes to the log as soon as it has run: the log keeps the order of the
   * calls and sends the appends that wait for one in flight together (a write waiting for the one
   * before it to be logged first held a cluster's realm to one write per round trip). A write with
   * nothing to log is answered after the writes before it. A refusal fences the realm. */
  private append(log: RealmLog, realmId: number, changes: readonly Change[]): Promise<void> {
    const refused = () => new LogRefusal('an earlier write was refused');
    if (this.fenced) return Promise.reject(refused());
    const appending =
      changes.length > 0
        ? log.append(realmId, changes)
        : this.lastAppend.then(() => {
            if (this.fenced) throw refused();
          });
    const appended = appending.catch((error: unknown) => {
      this.fenced = true;
      throw error instanceof LogRefusal ? error : new LogRefusal(String(error), { cause: error });
    });
    this.lastAppend = appended.catch(() => undefined);
    return appended;
  }

  private context(userId: number | null): CommandContext {
    return new CommandContext(this.state, this.store, this.config, this.sink, this.holders, this.presence, userId);
  }

  /** Expected errors go back to the caller as they are. Anything else is a bug: it is logged, the
   * caller gets a 500, and the realm's memory is reloaded from LMDB, where the command's writes were
   * rolled back. */
  private failure(error: unknown, command: CommandName): unknown {
    if (error instanceof ApiError) return error;
    if (error instanceof LogRefusal) {
      this.config.log.warn({ realm: this.state.realm.id, command, reason: error.message }, 'command not logged: the realm moved');
      return errors.realmMoved();
    }
    // Refused (before a change, or rolled back: memory is told by the write's onRollBack): the client
    // may try again once the realm has taken more IDs. Logged: after a change, it rolled back its
    // batch (a write took more IDs than it made sure of).
    if (error instanceof IdsExhausted) {
      this.config.log.warn({ realm: this.state.realm.id, command, reason: error.message }, 'command refused: the realm is taking more IDs');
      return errors.serverBusy();
    }
    this.stale = true;
    // Rolled back with the batch another write spoiled (that write's failure is logged).
    if (error instanceof RolledBackWithBatch) return errors.rolledBack();
    if (error instanceof StorageError) {
      // Not a bug: the disk refused the write. The caller learns nothing was saved; reads go on.
      this.config.log.error({ realm: this.state.realm.id, command, reason: error.reason }, 'command not saved: the store refused the write');
      return errors.storageUnavailable(error.reason);
    }
    this.config.log.error({ err: error, realm: this.state.realm.id, command }, 'command failed');
    return errors.internal();
  }

  private async reload(): Promise<void> {
    await this.settled(this.lastWrite);
    const realm = this.store.realms.get(this.state.realm.id);
    if (realm) {
      // What the state before kept stops counting now, not once it is collected.
      this.state.dropKeptJson();
      this.state = loadRealmState(this.store, realm);
    }
    this.stale = false;
    void this.memoryChanged?.();
    this.deliveries.arm(this.state.nextDelivery());
  }

  private settled(promise: Promise<unknown>): Promise<void> {
    return promise.then(
      () => undefined,
      () => undefined,
    );
  }
}
