GREETINGS = {
    "fr": "Bonjour à tous",
    "de": "Grüß Gott",
    "es": "¡Hola!",
}


def greeting(lang):
    return GREETINGS.get(lang, "Hello")
