/** A DynamoDB update expression built from named parts, so optional fields stay readable. */
export class Update {
  private readonly sets: string[] = [];
  private readonly removes: string[] = [];
  private readonly adds: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private n = 0;

  /** `path` is a list of attribute names, e.g. ['metadata', 'usageInfo']. */
  set(path: string[], value: unknown): this {
    this.sets.push(`${this.path(path)} = ${this.value(value)}`);
    return this;
  }

  /** Sets the attribute only where the item has none (a new item's default). */
  setIfMissing(path: string[], value: unknown): this {
    const name = this.path(path);
    this.sets.push(`${name} = if_not_exists(${name}, ${this.value(value)})`);
    return this;
  }

  /** Adds `n` to a number attribute (one absent counts as 0): an atomic counter. */
  add(path: string[], n: number): this {
    this.adds.push(`${this.path(path)} ${this.value(n)}`);
    return this;
  }

  remove(path: string[]): this {
    this.removes.push(this.path(path));
    return this;
  }

  /** The placeholder of an attribute path, for conditions. */
  path(path: string[]): string {
    return path
      .map((part) => {
        const name = `#n${this.n++}`;
        this.names[name] = part;
        return name;
      })
      .join('.');
  }

  value(value: unknown): string {
    const name = `:v${this.n++}`;
    this.values[name] = value;
    return name;
  }

  get expression(): string {
    return [
      this.sets.length ? `SET ${this.sets.join(', ')}` : '',
      this.removes.length ? `REMOVE ${this.removes.join(', ')}` : '',
      this.adds.length ? `ADD ${this.adds.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' ');
  }
}
