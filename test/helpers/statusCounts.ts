// How many answers had each status, for a fault test's figures.
export class StatusCounts {
  private readonly counts = new Map<number, number>();
  total = 0;

  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    this.total++;
  }

  /** `400×812 200×95 …`, most frequent first. */
  toString(): string {
    return [...this.counts]
      .sort((a, b) => b[1] - a[1])
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
  }
}
