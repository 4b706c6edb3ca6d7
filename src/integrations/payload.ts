// A webhook's JSON payload, read with the path of each field kept (Zulip's WildValue): an accessor
// that finds a field missing or of another type throws a PayloadError naming it, which the webhook
// endpoint answers as a 400, having posted nothing.

export class PayloadError extends Error {
  constructor(
    readonly path: string,
    readonly expected: string,
  ) {
    super(`${path} is missing or is not ${expected}`);
  }
}

const describe = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

export class Payload {
  constructor(
    readonly value: unknown,
    readonly path = 'payload',
  ) {}

  /** The field `key` of this object (an absent one reads as undefined, and fails only when used). */
  get(key: string): Payload {
    const own = this.value !== null && typeof this.value === 'object' && !Array.isArray(this.value) && Object.hasOwn(this.value, key);
    return new Payload(own ? (this.value as Record<string, unknown>)[key] : undefined, `${this.path}.${key}`);
  }

  /** A path of fields: `p.at('pull_request', 'user', 'login')`. */
  at(...keys: string[]): Payload {
    return keys.reduce<Payload>((payload, key) => payload.get(key), this);
  }

  /** Present and not null. */
  get exists(): boolean {
    return this.value !== undefined && this.value !== null;
  }

  private fail(expected: string): never {
    throw new PayloadError(this.path, expected);
  }

  str(): string {
    return typeof this.value === 'string' ? this.value : this.fail('a string');
  }

  num(): number {
    return typeof this.value === 'number' ? this.value : this.fail('a number');
  }

  bool(): boolean {
    return typeof this.value === 'boolean' ? this.value : this.fail('a boolean');
  }

  /** A string, or undefined where the field is absent or null. */
  optStr(): string | undefined {
    return this.exists ? this.str() : undefined;
  }

  optNum(): number | undefined {
    return this.exists ? this.num() : undefined;
  }

  optBool(): boolean | undefined {
    return this.exists ? this.bool() : undefined;
  }

  /** A string or a number, as text (IDs some services send either way). */
  text(): string {
    return typeof this.value === 'number' ? String(this.value) : this.str();
  }

  list(): Payload[] {
    if (!Array.isArray(this.value)) return this.fail('a list');
    return this.value.map((item, index) => new Payload(item, `${this.path}[${index}]`));
  }

  /** A list, or none where the field is absent or null. */
  optList(): Payload[] {
    return this.exists ? this.list() : [];
  }

  /** An object's fields, in order. */
  entries(): [string, Payload][] {
    if (this.value === null || typeof this.value !== 'object' || Array.isArray(this.value)) return this.fail('an object');
    return Object.keys(this.value).map((key) => [key, this.get(key)]);
  }

  /** What the value is, for messages about it. */
  get kind(): string {
    return describe(this.value);
  }
}
