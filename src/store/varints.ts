// LEB128: unsigned numbers in seven-bit groups, low group first, the high bit set on every byte but
// a number's last. The flag journal's records and the search index's posting chunks are message IDs
// written this way as deltas, most of them one or two bytes.

/** Writes `value` (below 2^32) at `at`; returns where the next number goes. At most five bytes. */
export function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[at++] = value;
  return at;
}

/** The numbers written in `bytes` from `start` to its end. */
export function readVarints(bytes: Uint8Array, start = 0): number[] {
  const values: number[] = [];
  for (let at = start; at < bytes.length; ) {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    values.push(value);
  }
  return values;
}
