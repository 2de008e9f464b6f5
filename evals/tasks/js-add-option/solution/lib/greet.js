function greet(name, greeting = "Hello") {
  return greeting + ", " + name + "!";
}

function farewell(name) {
  return "Goodbye, " + name + ".";
}

module.exports = { greet, farewell };
