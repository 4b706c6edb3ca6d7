// The full-text index: each realm's words and the messages holding them, kept in the same write as
// the messages themselves (send, edit, move, delete), so a search never disagrees with the data.
//
//   searchChunks [realmId, term, firstId] → IDs   the messages holding a term, in ID order, in
//                                                 chunks (postingLists.ts)
//   searchWords  [realmId, term]          → true  the realm's terms (prefixes are looked up here);
//                                                 a term no message holds any more stays, and
//                                                 finds nothing
//
// A query's messages are the intersection of its terms' postings, read newest first (or oldest
// first) side by side, skipping ahead where one list is far sparser (idCursors.ts). The last word's
// prefix stands for every term starting with it (at most PREFIX_TERMS of them), merged.
import type { Database } from 'lmdb';
import { indexTerms, searchable, type SearchQuery } from '../messages/search.js';
import { intersection, RangeCursor, UnionCursor, type IdCursor } from './idCursors.js';
import type { PostingLists } from './postingLists.js';

type Posting = [realmId: number, term: string, messageId: number];
type Word = [realmId: number, term: string];

/** What the index reads of a message. */
export interface Indexed {
  id: number;
  realmId: number;
  topic: string;
  renderedContent: string;
}

/** How many of a realm's terms memory remembers as stored in searchWords (beyond it, it starts
 * over): most messages are made of words the realm has used before. */
const KNOWN_WORDS = 100_000;

/** The most terms a prefix stands for: the first ones in alphabetical order. */
const PREFIX_TERMS = 200;

export class SearchIndex {
  /** Terms known to be in searchWords, by realm: their row needs no look-up when a message holds
   * them again. */
  private readonly knownWords = new Map<number, Set<string>>();
  /** Whether new messages' postings wait for `flush` (while `inBatch` runs). */
  private deferPostings = false;
  /** New messages' postings not yet put, oldest first. */
  private pending: Posting[] = [];
  /** How many of `pending` belong to the batch's writes before the one under way. */
  private earlier = 0;
  /** Earlier writes' postings that the write under way put (a `flush` within it): rolled back
   * with it, they wait again. */
  private putInWrite: Posting[] = [];

  constructor(
    private readonly postings: PostingLists,
    private readonly words: Database<true, Word>,
  ) {}

  /** Indexes a new message (`contentTerms`: its content's, when known already); call inside a write. */
  add(message: Indexed, contentTerms?: readonly string[]): void {
    for (const term of indexTerms(message, contentTerms)) {
      if (this.deferPostings) this.pending.push([message.realmId, term, message.id]);
      else this.post(message.realmId, term, [message.id]);
    }
  }

  /** Puts the postings `add` deferred. The store flushes at the end of each write batch; every
   * other use of the index flushes first. */
  flush(): void {
    if (this.pending.length === 0) return;
    for (let index = 0; index < this.earlier; index++) this.putInWrite.push(this.pending[index]!);
    this.earlier = 0;
    const pending = this.pending;
    this.pending = [];
    // One message's postings (a write batch of one, or a recorded write's): each term once.
    if (pending.every(([, , messageId]) => messageId === pending[0]![2])) {
      for (const [realmId, term, messageId] of pending) this.post(realmId, term, [messageId]);
      return;
    }
    // Each term's new IDs at once, in ID order.
    const byTerm = new Map<number, Map<string, number[]>>();
    for (const [realmId, term, messageId] of pending) {
      let terms = byTerm.get(realmId);
      if (!terms) byTerm.set(realmId, (terms = new Map()));
      const ids = terms.get(term);
      if (ids) ids.push(messageId);
      else terms.set(term, [messageId]);
    }
    for (const [realmId, terms] of byTerm) for (const [term, ids] of terms) this.post(realmId, term, ids.sort((a, b) => a - b));
  }

  /** Runs `fn` (inside a write) with new messages' postings deferred, then puts them: a write
   * batch's, put after its writes (outside their child transactions), so that each term's last
   * chunk is written once per batch instead of once per message. */
  inBatch(fn: () => void): void {
    this.deferPostings = true;
    try {
      fn();
      this.flush();
    } catch (error) {
      // The batch is rolled back whole (a write that checks first failed after a change): the
      // postings of its messages go with it.
      this.pending = [];
      this.endWrite();
      throw error;
    } finally {
      this.deferPostings = false;
    }
  }

  /** A write of a batch starts: the postings it defers are told from its predecessors'. */
  beginWrite(): void {
    this.earlier = this.pending.length;
  }

  /** The write succeeded: its postings stay with the batch's. */
  endWrite(): void {
    this.earlier = 0;
    this.putInWrite = [];
  }

  /** The write failed (LMDB rolled its transaction back): its postings go, and its predecessors'
   * wait for `flush` again, those it had put included. */
  rollBackWrite(): void {
    this.pending = [...this.putInWrite, ...this.pending.slice(0, this.earlier)];
    this.endWrite();
  }

  /** Takes a message out of the index; call inside a write. */
  remove(message: Indexed): void {
    this.flush();
    for (const term of indexTerms(message)) this.postings.remove(message.realmId, term, [message.id]);
  }

  /** Re-indexes an edited or moved message (`contentTerms`: its new content's, when found
   * already): only the terms that changed are written. */
  update(before: Indexed, after: Indexed, contentTerms?: readonly string[]): void {
    if (before.topic === after.topic && before.renderedContent === after.renderedContent) return;
    this.flush();
    const old = indexTerms(before);
    const now = indexTerms(after, contentTerms);
    for (const term of old) if (!now.has(term)) this.postings.remove(before.realmId, term, [before.id]);
    for (const term of now) if (!old.has(term)) this.post(after.realmId, term, [after.id]);
  }

  /** Adds messages (IDs ascending) to a term's postings, and the term to the realm's words. */
  private post(realmId: number, term: string, messageIds: readonly number[]): void {
    let known = this.knownWords.get(realmId);
    if (!known) this.knownWords.set(realmId, (known = new Set()));
    // A term not among the realm's words holds no message yet.
    const fresh = !known.has(term) && !this.words.doesExist([realmId, term]);
    this.postings.add(realmId, term, messageIds, fresh);
    if (known.has(term)) return;
    if (fresh) this.words.put([realmId, term], true);
    if (known.size >= KNOWN_WORDS) known.clear();
    known.add(term);
  }

  /** Forgets which terms are stored and where their postings end: after a write that may have
   * changed them was rolled back. */
  forget(): void {
    this.knownWords.clear();
    this.postings.forget();
  }

  /** Empties the index of every realm, before it is rebuilt (outside any write). */
  clear(): void {
    this.pending = [];
    this.knownWords.clear();
    this.postings.clear();
    this.words.clearSync();
  }

  /** The terms the query's prefix stands for: its own stem, and the realm's terms starting with
   * the word as typed. */
  private expand(realmId: number, prefix: NonNullable<SearchQuery['prefix']>): string[] {
    this.flush();
    const terms = new Set<string>([prefix.term]);
    for (const [, term] of this.words.getKeys({ start: [realmId, prefix.word], end: [realmId + 1] })) {
      if (!term.startsWith(prefix.word) || terms.size >= PREFIX_TERMS) break;
      terms.add(term);
    }
    return [...terms];
  }

  /** The messages of the realm holding every term of the query and its prefix (phrases are the
   * caller's to check), and in every one of `within` (other indexes' cursors: a channel's, say),
   * from `from` (inclusive) on, or back when reverse. */
  matches(realmId: number, query: SearchQuery, from: number, reverse: boolean, within: readonly IdCursor[] = []): Generator<number> {
    if (!searchable(query)) return intersection([]);
    this.flush();
    const cursor = (term: string) => new RangeCursor((start) => this.postings.holding(realmId, term, start, reverse), from, reverse);
    const cursors: IdCursor[] = query.terms.map(cursor);
    if (query.prefix) cursors.push(new UnionCursor(this.expand(realmId, query.prefix).map(cursor), reverse));
    return intersection([...cursors, ...within]);
  }
}
