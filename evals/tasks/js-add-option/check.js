const assert = require("assert");
const { greet, farewell } = require(process.cwd() + "/lib/greet.js");

assert.strictEqual(greet("Ada"), "Hello, Ada!");
assert.strictEqual(greet("Ada", "Hi"), "Hi, Ada!");
assert.strictEqual(farewell("Ada"), "Goodbye, Ada.");
