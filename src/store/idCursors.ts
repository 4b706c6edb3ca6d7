// Cursors over ordered message IDs (an index's rows, newest first or oldest first) that can skip
// ahead, and the intersection of several (a leapfrog join): each list is read in order while the
// next wanted ID is near, and re-opened at it when it is far, so that a rare list with a common
// one costs a few reads per match, and two common lists are read side by side.

/** Message IDs in one direction from a starting ID; `seek` moves to the first ID at or past a
 * target in that direction. `current` is undefined once the list is exhausted. */
export interface IdCursor {
  readonly current: number | undefined;
  advance(): void;
  seek(target: number): void;
  close(): void;
}

/** Steps read one by one before a seek re-opens the range instead. */
const STEPS_BEFORE_REOPEN = 8;

/** A cursor over an index's range, opened by `open(from)` (reverse: descending from `from`). */
export class RangeCursor implements IdCursor {
  private iterator!: Iterator<number>;
  current: number | undefined;

  constructor(
    private readonly open: (from: number) => Iterable<number>,
    from: number,
    private readonly reverse: boolean,
  ) {
    this.restart(from);
  }

  private short(id: number, target: number): boolean {
    return this.reverse ? id > target : id < target;
  }

  private restart(from: number): void {
    this.iterator?.return?.();
    this.iterator = this.open(from)[Symbol.iterator]();
    this.advance();
  }

  advance(): void {
    const next = this.iterator.next();
    this.current = next.done ? undefined : next.value;
  }

  seek(target: number): void {
    for (let step = 0; step < STEPS_BEFORE_REOPEN && this.current !== undefined && this.short(this.current, target); step++) this.advance();
    if (this.current !== undefined && this.short(this.current, target)) this.restart(target);
  }

  close(): void {
    this.iterator.return?.();
  }
}

/** The IDs in any of several cursors, in order, each once. */
export class UnionCursor implements IdCursor {
  current: number | undefined;

  constructor(
    private readonly members: readonly IdCursor[],
    private readonly reverse: boolean,
  ) {
    this.settle();
  }

  private settle(): void {
    let best: number | undefined;
    for (const { current } of this.members) {
      if (current !== undefined && (best === undefined || (this.reverse ? current > best : current < best))) best = current;
    }
    this.current = best;
  }

  advance(): void {
    const passed = this.current;
    for (const member of this.members) if (member.current === passed) member.advance();
    this.settle();
  }

  seek(target: number): void {
    for (const member of this.members) member.seek(target);
    this.settle();
  }

  close(): void {
    for (const member of this.members) member.close();
  }
}

/** The IDs every cursor holds, in order; closes the cursors when done. */
export function* intersection(cursors: readonly IdCursor[]): Generator<number> {
  try {
    let target = cursors[0]?.current;
    while (target !== undefined) {
      let agreed = true;
      for (const cursor of cursors) {
        cursor.seek(target);
        if (cursor.current === undefined) return;
        if (cursor.current !== target) {
          target = cursor.current;
          agreed = false;
          break;
        }
      }
      if (agreed) {
        yield target;
        cursors[0]!.advance();
        target = cursors[0]!.current;
      }
    }
  } finally {
    for (const cursor of cursors) cursor.close();
  }
}
