const assert = require("assert");
const { range, sum } = require(process.cwd() + "/src/range.js");

assert.deepStrictEqual(range(1, 3), [1, 2, 3]);
assert.deepStrictEqual(range(5, 5), [5]);
assert.deepStrictEqual(range(3, 1), []);
assert.strictEqual(sum(range(1, 4)), 10);
