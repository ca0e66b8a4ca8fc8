import { describe, expect, it } from "vitest";
import { createKeyTable } from "./key-table.js";

describe("createKeyTable", () => {
  it("gets, replaces and takes values by key, as a Map would", () => {
    const table = createKeyTable<string, number>();
    table.set("n:1", 1);
    table.set("s:1", 2);
    expect(table.get("n:1")).toBe(1);
    expect(table.get("s:1")).toBe(2);
    expect(table.has("n:2")).toBe(false);
    table.set("n:1", 3);
    expect(table.size).toBe(2);
    expect(table.take("n:1")).toBe(3);
    expect(table.take("n:1")).toBeUndefined();
    expect(table.get("n:1")).toBeUndefined();
    expect(table.size).toBe(1);
  });

  it("keeps numbers and strings apart", () => {
    const table = createKeyTable<string | number, string>();
    table.set(1, "number");
    table.set("1", "string");
    expect(table.get(1)).toBe("number");
    expect(table.get("1")).toBe("string");
    table.set(2 ** 40 + 1, "large");
    expect(table.get(2 ** 40 + 1)).toBe("large");
    expect(table.get(1)).toBe("number");
  });

  it("lists values oldest first, a replaced one keeping its place", () => {
    const table = createKeyTable<string, string>();
    for (const key of ["c", "a", "b", "d"]) table.set(key, key);
    table.take("a");
    table.set("c", "C");
    table.set("a", "a2");
    expect(table.values()).toEqual(["C", "b", "d", "a2"]);
    const seen: string[] = [];
    table.forEach((value) => {
      seen.push(value);
    });
    expect(seen.sort()).toEqual(["C", "a2", "b", "d"]);
  });

  it("agrees with a Map through growth, churn and shrinking", () => {
    const table = createKeyTable<string, number>();
    const map = new Map<string, number>();
    let next = 0;
    const check = (): void => {
      expect(table.size).toBe(map.size);
      expect(table.values()).toEqual([...map.values()]);
    };
    // Grow to 1 000, churn with 64 in flight, then drain to a few.
    for (; next < 1_000; next += 1) {
      table.set(`n:${next}`, next);
      map.set(`n:${next}`, next);
    }
    check();
    for (let index = 0; index < 20_000; index += 1) {
      const key = `n:${next - 64 - (index % 7)}`;
      expect(table.take(key)).toBe(map.get(key));
      map.delete(key);
      table.set(`n:${next}`, next);
      map.set(`n:${next}`, next);
      next += 1;
    }
    check();
    for (const key of [...map.keys()].slice(3)) {
      expect(table.take(key)).toBe(map.get(key));
      map.delete(key);
    }
    table.set("s:last", -1);
    map.set("s:last", -1);
    check();
    for (const key of map.keys()) expect(table.get(key)).toBe(map.get(key));
    table.clear();
    expect(table.size).toBe(0);
    expect(table.values()).toEqual([]);
    expect(table.get("s:last")).toBeUndefined();
  });

  it("keeps apart keys that collide under a seedless string hash", () => {
    // 4 096 keys of "Aa"/"BB" pairs: one value of `h * 31 + c` for all of them.
    const keys = Array.from({ length: 4_096 }, (_, index) =>
      Array.from({ length: 12 }, (_, bit) => ((index >> bit) & 1 ? "Aa" : "BB")).join(""),
    );
    const table = createKeyTable<string, number>();
    keys.forEach((key, index) => {
      table.set(key, index);
    });
    keys.forEach((key, index) => {
      expect(table.get(key)).toBe(index);
    });
    expect(table.size).toBe(4_096);
  });
});
