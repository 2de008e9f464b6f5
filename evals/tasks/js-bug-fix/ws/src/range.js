// Inclusive integer range: range(1, 3) is [1, 2, 3].
function range(start, end) {
  const out = [];
  for (let i = start; i < end; i++) {
    out.push(i);
  }
  return out;
}

function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

module.exports = { range, sum };
