GREETINGS = {
    "fr": "Bonjour à tous",
    "de": "Grüß Gott",
    "es": "¡Hola!",
    "it": "Ciao a tutti",
}


def greeting(lang):
    return GREETINGS.get(lang, "Hello, world")
