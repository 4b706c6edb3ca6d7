// A kept buffer that a long answer's pieces of JSON are written into as UTF-8, for uWebSockets.js
// to copy (`end` copies its body before it returns), instead of a new buffer as long as the answer.
// Memory a process has not touched before is dear (on this project's test machine, a Firecracker
// VM, ~8 µs a page: a new 600 KB buffer and its copy cost ~1.2 ms, against ~10 µs into a kept
// one), and a buffer past glibc's mmap threshold is such memory each time.

/** The size a scratch buffer starts at. */
const INITIAL_BYTES = 256 * 1024;
/** A scratch buffer grown past this is let go after use, not kept: memory held for a rare huge
 * answer would be held for good. */
const KEPT_BYTES = 8 * 1024 * 1024;

export class ScratchBytes {
  private buffer: Buffer | null = null;
  private length = 0;
  private inUse = false;

  /** Starts writing; false when the scratch is taken already. */
  private take(): boolean {
    if (this.inUse) return false;
    this.inUse = true;
    this.length = 0;
    return true;
  }

  /** The kept scratch, taken; while it is taken (a write within a write), a new one. */
  static take(): ScratchBytes {
    if (kept.take()) return kept;
    const own = new ScratchBytes();
    own.take();
    return own;
  }

  /** Appends text as UTF-8. */
  text(text: string): void {
    // A UTF-16 code unit is at most three bytes of UTF-8.
    const buffer = this.room(text.length * 3);
    this.length += buffer.write(text, this.length);
  }

  /** What was written, as a view of the scratch: good until the scratch is next taken. */
  view(): Buffer {
    return this.buffer ? this.buffer.subarray(0, this.length) : Buffer.alloc(0);
  }

  /** Ends writing: the scratch may be taken again. */
  release(): void {
    this.inUse = false;
    if (this.buffer && this.buffer.length > KEPT_BYTES) this.buffer = null;
  }

  /** The buffer, with room for `more` bytes after what was written. */
  private room(more: number): Buffer {
    const needed = this.length + more;
    if (this.buffer && this.buffer.length >= needed) return this.buffer;
    const grown = Buffer.allocUnsafeSlow(Math.max(needed, INITIAL_BYTES, 2 * (this.buffer?.length ?? 0)));
    this.buffer?.copy(grown, 0, 0, this.length);
    this.buffer = grown;
    return grown;
  }
}

const kept = new ScratchBytes();
