function greet(name) {
  return "Hello, " + name + "!";
}

function farewell(name) {
  return "Goodbye, " + name + ".";
}

module.exports = { greet, farewell };
