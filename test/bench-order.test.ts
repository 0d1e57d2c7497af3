/**
 * The order the benchmarks run their variants in (bench/measure.ts `balancedOrder`): over a whole cycle each variant
 * runs in each place equally often and follows each other variant equally often, so that what one variant leaves
 * behind does not always fall on the same next one.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { balancedOrder, balancedRounds } from "../bench/measure.js";

for (const count of [2, 3, 4, 5, 6]) {
  test(`${count} variants: over a cycle each runs once per round, equally often in each place and after each other`, () => {
    const variants = Array.from({ length: count }, (_, i) => `v${i}`);
    const cycle = balancedRounds(count, 1);
    assert.equal(cycle, count % 2 === 0 ? count : 2 * count);
    const follows = new Map<string, number>();
    const places = new Map<string, number>();
    for (let round = 0; round < cycle; round++) {
      const order = balancedOrder(variants, round);
      assert.deepEqual([...order].sort(), variants, `round ${round} runs every variant once`);
      order.forEach((v, place) => {
        places.set(`${v}@${place}`, (places.get(`${v}@${place}`) ?? 0) + 1);
        if (place > 0) follows.set(`${order[place - 1]}>${v}`, (follows.get(`${order[place - 1]}>${v}`) ?? 0) + 1);
      });
    }
    assert.equal(follows.size, count * (count - 1), "every ordered pair of variants occurs");
    assert.equal(new Set(follows.values()).size, 1, "each pair as often as any other");
    assert.equal(places.size, count * count);
    assert.equal(new Set(places.values()).size, 1, "each variant in each place as often");
  });
}

test("balancedRounds: the fewest whole cycles covering the rounds asked for", () => {
  assert.equal(balancedRounds(5, 9), 10);
  assert.equal(balancedRounds(3, 9), 12);
  assert.equal(balancedRounds(3, 24), 24);
  assert.equal(balancedRounds(2, 1), 2);
});
