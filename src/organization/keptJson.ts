// The JSON a process keeps of its realms' states (users' entries, channels and their subscribers,
// messages' views), counted together against one budget (PARLEY_KEPT_JSON_MB). Each realm bounds
// its own, but a server keeps every realm it loaded, and a few hundred realms' bounds together
// would not fit in the heap: one that outgrew it would end the process, and every realm with it.
// Past the budget, the realm whose kept JSON was used longest ago gives all of it up, and makes it
// again when next asked. A realm's state is let go of when it is reloaded or leaves the process:
// what it kept stops counting once it is collected.

/** Heap bytes a kept character takes, with its maps' share, at most: measured in reviews, 18 MB for
 * 8 M one-byte characters of chat lines' views (23 MB with emoji), ~1.1 bytes a character for views
 * of 2,000 characters; short values (users' entries, chat lines) take the most. */
export const BYTES_PER_KEPT_CHARACTER = 2.5;

/** What keeps JSON: a realm's state, which gives all of it up on request. */
export interface KeptJsonHolder {
  dropKeptJson(): void;
}

/** One holder's count in the ledger, which its caches keep up to date. */
export class KeptJsonTally {
  characters = 0;
  /** When its JSON was last used, as the ledger's clock counts. */
  used = 0;

  constructor(
    private readonly ledger: KeptJsonLedger,
    readonly holder: WeakRef<KeptJsonHolder>,
  ) {}

  /** The holder's JSON was used (kept, or served from what was kept). */
  touch(): void {
    this.used = this.ledger.tick();
  }

  /** The holder kept `characters` more (fewer, when negative); past the budget, room is made. */
  add(characters: number): void {
    this.characters += characters;
    this.ledger.added(this, characters);
  }
}

export class KeptJsonLedger {
  private readonly tallies = new Set<KeptJsonTally>();
  private total = 0;
  private clock = 0;
  /** Stops counting a holder's JSON once the holder is collected. */
  private readonly collected = new FinalizationRegistry<KeptJsonTally>((tally) => this.release(tally));

  /** `limit`: characters kept in all. */
  constructor(public limit: number) {}

  /** Counts what `holder` keeps from now on. */
  open(holder: KeptJsonHolder): KeptJsonTally {
    const tally = new KeptJsonTally(this, new WeakRef(holder));
    this.tallies.add(tally);
    this.collected.register(holder, tally);
    return tally;
  }

  tick(): number {
    return ++this.clock;
  }

  /** Characters kept in all. */
  get characters(): number {
    return this.total;
  }

  /** The heap they take, as counted. */
  get bytes(): number {
    return this.total * BYTES_PER_KEPT_CHARACTER;
  }

  added(tally: KeptJsonTally, characters: number): void {
    this.total += characters;
    // What is given up (forgotten, cleared) is no use of the holder's JSON.
    if (characters <= 0) return;
    tally.used = ++this.clock;
    this.fit();
  }

  /** Past the limit, the holder used longest ago gives up its JSON, then the next, until the rest
   * fit (the one just used, last: a single answer may be larger than the budget). */
  private fit(): void {
    while (this.total > this.limit) {
      let oldest: KeptJsonTally | undefined;
      for (const tally of this.tallies) if (tally.characters > 0 && (!oldest || tally.used < oldest.used)) oldest = tally;
      if (!oldest) return;
      const holder = oldest.holder.deref();
      // Its caches tell the ledger what they give up. A holder collected already counts no more
      // (nor would one that failed to give it all up: the loop ends).
      if (holder) holder.dropKeptJson();
      if (oldest.characters > 0) this.release(oldest);
    }
  }

  private release(tally: KeptJsonTally): void {
    this.total -= tally.characters;
    tally.characters = 0;
    this.tallies.delete(tally);
  }
}

/** The process's ledger (a realm thread's, where the realms run on one): its limit is the server's
 * PARLEY_KEPT_JSON_MB, set when the realms are assembled. */
export const keptJson = new KeptJsonLedger(Number.POSITIVE_INFINITY);
