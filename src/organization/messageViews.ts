// Messages' views kept as JSON (GET /messages joins them with each viewer's flags): by message and
// variant of the view, within a budget of characters a realm. The recent messages many users
// fetch are kept; past the budget the oldest go first, but one used since it was last passed over
// is given another round (the clock algorithm: no reordering on each use, which cost a window of
// 1,000 messages ~0.6 ms), and a view too long to be worth its room is made again each time. The
// views are good while the realm's state has not moved (names, channels, the realm record: what a
// view shows besides its message): all go when it does. A message's go when it is saved again or
// removed (`forget`). What is kept counts in the process's ledger of kept JSON (keptJson.ts) too.
import type { KeptJsonTally } from './keptJson.js';

/** How many characters of views a realm keeps at most: ~4,000 views of a chat line's size, 9 to 12
 * MB of memory with their maps (measured in review: 18 MB for 8 M one-byte characters, 23 MB with
 * emoji), in each realm loaded. */
const KEPT_VIEW_CHARACTERS = 4_000_000;
/** Views longer than this are not kept: a message of thousands of characters with markup (a view
 * of 100 KB is possible) would take the room of a hundred ordinary ones. */
const LONGEST_KEPT_VIEW = 16_000;

interface Kept {
  /** Each variant's JSON. */
  variants: Map<number, string>;
  /** Their characters in all. */
  characters: number;
  /** Used since it was kept or last passed over. */
  used: boolean;
}

export class MessageViews {
  /** By message, the one kept or passed over longest ago first. */
  private readonly kept = new Map<number, Kept>();
  private characters = 0;
  /** The state's version the views kept were made at. */
  private version: number;

  constructor(
    private readonly state: { readonly version: number },
    private readonly tally: KeptJsonTally,
    private readonly budget = KEPT_VIEW_CHARACTERS,
    private readonly longest = LONGEST_KEPT_VIEW,
  ) {
    this.version = state.version;
  }

  /** The message's view in this variant: kept, or made by `make` (and kept if there is room). */
  get(messageId: number, variant: number, make: () => string): string {
    if (this.version !== this.state.version) this.clear();
    const found = this.kept.get(messageId);
    const json = found?.variants.get(variant);
    if (found && json !== undefined) {
      found.used = true;
      this.tally.touch();
      return json;
    }
    const made = make();
    if (made.length > this.longest) return made;
    // Looked up again: what was kept may have been given up, or this very view kept, while the view
    // was made.
    let entry = this.kept.get(messageId);
    if (!entry) this.kept.set(messageId, (entry = { variants: new Map(), characters: 0, used: false }));
    const grown = made.length - (entry.variants.get(variant)?.length ?? 0);
    entry.variants.set(variant, made);
    entry.characters += grown;
    const before = this.characters;
    this.characters += grown;
    this.makeRoom();
    this.tally.add(this.characters - before);
    return made;
  }

  /** Forgets every view. */
  clear(): void {
    const characters = this.characters;
    this.kept.clear();
    this.characters = 0;
    this.version = this.state.version;
    if (characters > 0) this.tally.add(-characters);
  }

  /** Forgets the oldest views until the rest fit the budget; one used since it was last passed
   * over goes to the end instead, once. */
  private makeRoom(): void {
    while (this.characters > this.budget) {
      const [id, oldest] = this.kept.entries().next().value as [number, Kept];
      this.kept.delete(id);
      if (oldest.used) {
        oldest.used = false;
        this.kept.set(id, oldest);
      } else {
        this.characters -= oldest.characters;
      }
    }
  }

  /** Forgets the message's views: it was saved again, or removed. */
  forget(messageId: number, entry = this.kept.get(messageId)): void {
    if (!entry) return;
    this.kept.delete(messageId);
    this.characters -= entry.characters;
    this.tally.add(-entry.characters);
  }

  /** How many characters are kept. */
  get size(): number {
    return this.characters;
  }
}
