// Realms' logs on JetStream: each realm's committed change sets on its own subject, appended by the
// realm's owner with the subject's last sequence as the fence, so that a node that lost the realm
// (paused, cut off) can never append after the node that took it over. Appends are coalesced: the
// writes recorded in one turn go together, and while an append is in flight, the writes that
// follow wait and go together in the next. A write larger than a message goes in parts of one
// group, applied together when read back.
import { randomBytes } from 'node:crypto';
import { JetStreamApiError } from '@nats-io/jetstream';
import { Packr } from 'msgpackr';
import { LogRefusal, type RealmLog } from '../realm/log.js';
import type { Change, ValueForm } from '../store/changes.js';
import { LOG_STREAM, MAX_LOG_MESSAGE_BYTES, subjects, WRONG_LAST_SEQUENCE, type Cluster } from './connection.js';

/** One message of the log: part of a group of changes applied together. */
interface LogMessage {
  group: string;
  changes: Change[];
  /** More parts of the group follow. */
  more: boolean;
  /** The changes' values are in their stored form (absent: the change encoding, as written before). */
  stored?: true;
}

const codec = new Packr({ useRecords: false });

/** How long an append is tried again while NATS recovers, each try's patience, and the pause. */
const RETRY_APPENDS_MS = 15_000;
const ATTEMPT_MS = 2_000;
const RETRY_PAUSE_MS = 250;

/** This process's groups: a random prefix drawn once, then a count (JetStream's duplicate window
 * needs IDs unique across the nodes' appends; a random draw per append cost ~20 µs). */
const groupPrefix = randomBytes(8).toString('hex');
let groups = 0;

/** Splits a group's changes into messages within the size limit, each with its own message ID. */
function messagesOf(changes: readonly Change[]): { id: string; data: Uint8Array }[] {
  const group = `${groupPrefix}-${(++groups).toString(36)}`;
  const messages: { id: string; data: Uint8Array }[] = [];
  let part: Change[] = [];
  let bytes = 0;
  const seal = (more: boolean) => messages.push({ id: `${group}-${messages.length}`, data: codec.pack({ group, changes: part, more, stored: true } satisfies LogMessage) });
  for (const change of changes) {
    const size = (change[2]?.length ?? 0) + 64;
    if (part.length > 0 && bytes + size > MAX_LOG_MESSAGE_BYTES) {
      seal(true);
      part = [];
      bytes = 0;
    }
    part.push(change);
    bytes += size;
  }
  seal(false);
  return messages;
}

interface Pending {
  changes: readonly Change[];
  resolve(): void;
  reject(error: unknown): void;
}

/** How much a realm's log has grown: messages appended, and their bytes. */
export interface LogGrowth {
  messages: number;
  bytes: number;
}

/** Where a realm's appends go: JetStream's publish, as a RealmWriter uses it. */
export interface LogPublisher {
  publish(subject: string, data: Uint8Array, options: { msgID: string; expect: { lastSubjectSequence: number }; timeout: number }): Promise<{ seq: number }>;
  /** The sequence of the subject's first message after `after`, if it is the one of `msgID`. */
  storedAs(subject: string, after: number, msgID: string): Promise<number | undefined>;
}

/** The appends of one realm this node owns. */
export class RealmWriter {
  private readonly waiting: Pending[] = [];
  private flushing = false;
  private refusal: LogRefusal | undefined;
  /** Messages and bytes appended since the realm's last snapshot. */
  sinceSnapshot: LogGrowth = { messages: 0, bytes: 0 };

  constructor(
    private readonly publisher: LogPublisher,
    private readonly realmId: number,
    /** The sequence of the realm's newest message in the log. */
    public lastSeq: number,
    private readonly onRefused: (realmId: number) => void,
    private readonly onAppended: (realmId: number, sinceSnapshot: LogGrowth) => void,
  ) {}

  append(changes: readonly Change[]): Promise<void> {
    if (this.refusal) return Promise.reject(this.refusal);
    return new Promise((resolve, reject) => {
      this.waiting.push({ changes, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  /** Resolves once every append so far is settled. */
  async settled(): Promise<void> {
    while (this.flushing) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  /** Appends one message after `lastSeq`. A refusal of that fence is final; anything else (a NATS
   * server gone, a stream leader being elected, an acknowledgement not after `lastSeq`) is tried
   * again with the same message ID, which JetStream recognises should the first try have been
   * stored after all. A clustered stream of nats-server before 2.11 checks the fence first, so a
   * try after one whose answer was lost is refused by that try itself: it stands if the subject's
   * next message is this one. */
  private async publish(message: { id: string; data: Uint8Array }): Promise<number> {
    const deadline = performance.now() + RETRY_APPENDS_MS;
    const subject = subjects.log(this.realmId);
    for (let attempt = 0; ; attempt++) {
      try {
        const { seq } = await this.publisher.publish(subject, message.data, { msgID: message.id, expect: { lastSubjectSequence: this.lastSeq }, timeout: ATTEMPT_MS });
        if (seq <= this.lastSeq) throw new Error(`JetStream acknowledged the append at ${seq}, not after ${this.lastSeq}`);
        return seq;
      } catch (error) {
        let fenced = error instanceof JetStreamApiError && error.code === WRONG_LAST_SEQUENCE;
        if (fenced && attempt > 0) {
          const stored = await this.publisher.storedAs(subject, this.lastSeq, message.id).catch(() => null);
          if (stored) return stored;
          // Not known whether an earlier try is there (the lookup failed): tried again.
          if (stored === null) fenced = false;
        }
        if (fenced || performance.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      }
    }
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      // The writes of one batch are recorded one after another in the same turn: they go together,
      // rather than the first alone and the rest after its round trip.
      await Promise.resolve();
      while (this.waiting.length > 0 && !this.refusal) {
        const batch = this.waiting.splice(0);
        try {
          for (const message of messagesOf(batch.flatMap((pending) => pending.changes))) {
            this.lastSeq = await this.publish(message);
            this.sinceSnapshot.messages++;
            this.sinceSnapshot.bytes += message.data.length;
          }
          for (const pending of batch) pending.resolve();
          this.onAppended(this.realmId, this.sinceSnapshot);
        } catch (error) {
          this.refusal = new LogRefusal(`realm ${this.realmId}'s log refused the append: ${error instanceof Error ? error.message : String(error)}`);
          for (const pending of [...batch, ...this.waiting.splice(0)]) pending.reject(this.refusal);
          this.onRefused(this.realmId);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

export class ClusterLog implements RealmLog {
  private readonly writers = new Map<number, RealmWriter>();

  constructor(
    private readonly cluster: Cluster,
    /** Where appends go (JetStreamAppends on the cluster's connection). */
    private readonly appends: LogPublisher,
    /** Called once the log refused a realm's append: the node lost the realm. */
    private readonly onRefused: (realmId: number) => void,
    /** Called after appends, with how much the realm's log has grown since its snapshot. */
    private readonly onAppended: (realmId: number, sinceSnapshot: LogGrowth) => void,
  ) {}

  /** Starts appending for a realm this node now owns, after the log's newest message. */
  own(realmId: number, lastSeq: number): void {
    this.writers.set(realmId, new RealmWriter(this.appends, realmId, lastSeq, this.onRefused, this.onAppended));
  }

  /** Fences a realm's log where this node, taking the realm, read it to: an empty group appended
   * after it, so that an append of the node that held the realm before (paused past its lease,
   * not knowing yet) is refused from now on, rather than acknowledged while missing from this
   * node's state. Rejects (LogRefusal) if the log moved on meanwhile. */
  async fence(realmId: number): Promise<void> {
    await this.writers.get(realmId)?.append([]);
  }

  /** Where a realm this node owns stands in its log, and a fresh count towards its next snapshot. */
  snapshotPoint(realmId: number): number | undefined {
    const writer = this.writers.get(realmId);
    if (writer) writer.sinceSnapshot = { messages: 0, bytes: 0 };
    return writer?.lastSeq;
  }

  /** Stops appending for a realm; resolves with the sequence of its newest message, once every
   * append so far is settled. */
  async release(realmId: number): Promise<number | undefined> {
    const writer = this.writers.get(realmId);
    this.writers.delete(realmId);
    await writer?.settled();
    return writer?.lastSeq;
  }

  abandon(realmId: number): void {
    this.onRefused(realmId);
  }

  append(realmId: number, changes: readonly Change[]): Promise<void> {
    const writer = this.writers.get(realmId);
    if (!writer) return Promise.reject(new LogRefusal(`this node does not own realm ${realmId}`));
    return writer.append(changes);
  }

  /** The sequence of a realm's newest message (0: none). */
  async lastSeq(realmId: number): Promise<number> {
    const last = await this.cluster.jsm.streams.getMessage(LOG_STREAM, { last_by_subj: subjects.log(realmId) });
    return last?.seq ?? 0;
  }

  /** Reads a realm's log after `afterSeq`, handing each complete group of changes (and the form of
   * their values) to `apply` in order; resolves with the sequence of the last message read. A group
   * left incomplete by an owner that died part-way (never acknowledged) is skipped. */
  async read(realmId: number, afterSeq: number, apply: (changes: Change[], form: ValueForm) => Promise<void>): Promise<number> {
    let seq = afterSeq;
    let open: { group: string; changes: Change[] } | undefined;
    for (;;) {
      const kept = await this.cluster.jsm.direct.getMessage(LOG_STREAM, { next_by_subj: subjects.log(realmId), seq: seq + 1 });
      if (!kept) return seq;
      seq = kept.seq;
      const message = codec.unpack(kept.data) as LogMessage;
      if (open?.group !== message.group) open = { group: message.group, changes: [] };
      open.changes.push(...message.changes);
      if (!message.more) {
        await apply(open.changes, message.stored ? 'stored' : 'change');
        open = undefined;
      }
    }
  }
}
