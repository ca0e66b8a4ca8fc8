// A table of values by key, for what a proxy holds while requests are in flight. A `Map`
// whose entries come and go rebuilds its hash table every so many additions, and V8 allocates
// the new table where the old one was: once one is in the old generation (after the first full
// collection), each rebuild leaves a dead table there that still points at the entries live at
// that moment, and keeps them, and all they hold, past every scavenge until the next full
// collection. Under a steady load that was every request's objects, promoted. This table keeps
// its slots in two arrays it reuses: a removed entry's slot is cleared at once, a rebuild puts
// the entries back into the same arrays, and arrays it outgrows are cleared before they are let
// go, so nothing dead points at an entry.

const EMPTY = undefined;
// A removed entry: the search for a key goes on past it.
const REMOVED = null;
const MIN_CAPACITY = 16;

/**
 * Values by key, a string or a number (not NaN; an integer is kept as it is, a string is
 * compared by its text); iteration is oldest first, as a `Map`'s.
 */
export interface KeyTable<Key extends string | number, Value> {
  get(key: Key): Value | undefined;
  has(key: Key): boolean;
  /** Add, or replace (keeping its place in the order). */
  set(key: Key, value: Value): void;
  /** Remove; returns the value, if the key was there. */
  take(key: Key): Value | undefined;
  /** Every value, oldest first (a snapshot). */
  values(): Value[];
  /** Every value, in no particular order (nothing may be added or removed meanwhile). */
  forEach(visit: (value: Value) => void): void;
  clear(): void;
  readonly size: number;
}

/** Create a {@link KeyTable}. */
export function createKeyTable<Key extends string | number, Value>(): KeyTable<Key, Value> {
  // Keys, values and when each was added (the order), slot by slot; open addressing.
  let keys: (Key | null | undefined)[] = new Array(MIN_CAPACITY).fill(EMPTY);
  let values: (Value | undefined)[] = new Array(MIN_CAPACITY).fill(undefined);
  let order: number[] = new Array(MIN_CAPACITY).fill(0);
  // Each entry's hash, so that a rebuild does not walk its key again.
  let hashes: number[] = new Array(MIN_CAPACITY).fill(0);
  let mask = MIN_CAPACITY - 1;
  let size = 0;
  // Slots in use: entries and removed ones.
  let used = 0;
  let added = 0;
  // A hash of its own per table: ids come from peers.
  const seed = (Math.random() * 0x100000000) >>> 0;

  // The last key hashed, and its hash: a key is mostly looked up twice in a row (is it there?
  // then add it; whose answer is this? then settle it), and a string's hash is a walk of it.
  let lastKey: Key | undefined;
  let lastHash = 0;
  const hash = (key: Key): number => {
    if (key === lastKey) return lastHash;
    let h = seed;
    if (typeof key === "number") {
      h = Math.imul(h ^ (key | 0), 0x85ebca6b) ^ ((key / 0x100000000) | 0);
    } else {
      // FNV-1a from the table's seed: which keys collide depends on the seed (with `h * 31 +
      // c`, "Aa" and "BB" collide whatever the start, and so do 2^n ids made of them).
      const length = key.length;
      for (let index = 0; index < length; index += 1)
        h = Math.imul(h ^ key.charCodeAt(index), 0x01000193);
    }
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
    lastKey = key;
    lastHash = (h ^ (h >>> 15)) >>> 0;
    return lastHash;
  };

  const live = (slot: number): boolean => keys[slot] !== EMPTY && keys[slot] !== REMOVED;

  /** The slot holding `key`, or -1. */
  const find = (key: Key): number => {
    for (let slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
      const at = keys[slot];
      if (at === EMPTY) return -1;
      if (at === key) return slot;
    }
  };

  const place = (key: Key, value: Value, when: number, h: number): void => {
    let slot = h & mask;
    while (keys[slot] !== EMPTY) slot = (slot + 1) & mask;
    keys[slot] = key;
    values[slot] = value;
    order[slot] = when;
    hashes[slot] = h;
  };

  /** Put the entries back with no removed slots, into arrays of a capacity fit for them. */
  const rebuild = (): void => {
    let capacity = MIN_CAPACITY;
    while (capacity < (size + 1) * 3) capacity *= 2;
    const liveKeys: Key[] = [];
    const liveValues: Value[] = [];
    const liveOrder: number[] = [];
    const liveHashes: number[] = [];
    for (let slot = 0; slot <= mask; slot += 1) {
      const key = keys[slot];
      if (key === EMPTY || key === REMOVED) continue;
      liveKeys.push(key);
      liveValues.push(values[slot] as Value);
      liveOrder.push(order[slot]!);
      liveHashes.push(hashes[slot]!);
    }
    // Cleared in place: the arrays are reused, or let go holding nothing.
    keys.fill(EMPTY);
    values.fill(undefined);
    if (capacity !== mask + 1) {
      keys = new Array(capacity).fill(EMPTY);
      values = new Array(capacity).fill(undefined);
      order = new Array(capacity).fill(0);
      hashes = new Array(capacity).fill(0);
      mask = capacity - 1;
    }
    used = size;
    for (let index = 0; index < liveKeys.length; index += 1) {
      place(liveKeys[index]!, liveValues[index]!, liveOrder[index]!, liveHashes[index]!);
    }
  };

  return {
    get(key) {
      const slot = find(key);
      return slot === -1 ? undefined : values[slot];
    },
    has: (key) => find(key) !== -1,
    set(key, value) {
      const slot = find(key);
      if (slot !== -1) {
        values[slot] = value;
        return;
      }
      // At most half the slots in use, so that a search ends soon.
      if ((used + 1) * 2 > mask + 1) rebuild();
      place(key, value, added, hash(key));
      added += 1;
      size += 1;
      used += 1;
    },
    take(key) {
      const slot = find(key);
      if (slot === -1) return undefined;
      const value = values[slot];
      keys[slot] = REMOVED;
      values[slot] = undefined;
      size -= 1;
      return value;
    },
    values() {
      const slots: number[] = [];
      for (let slot = 0; slot <= mask; slot += 1) {
        if (live(slot)) slots.push(slot);
      }
      slots.sort((a, b) => order[a]! - order[b]!);
      return slots.map((slot) => values[slot] as Value);
    },
    forEach(visit) {
      for (let slot = 0; slot <= mask; slot += 1) {
        if (live(slot)) visit(values[slot] as Value);
      }
    },
    clear() {
      keys.fill(EMPTY);
      values.fill(undefined);
      size = 0;
      used = 0;
    },
    get size() {
      return size;
    },
  };
}
