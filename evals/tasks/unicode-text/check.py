import sys

sys.path.insert(0, ".")
import messages

assert messages.greeting("it") == "Ciao a tutti"
assert messages.greeting("fr") == "Bonjour à tous"
assert messages.greeting("de") == "Grüß Gott"
assert messages.greeting("es") == "¡Hola!"
assert messages.greeting("xx") == "Hello, world"
