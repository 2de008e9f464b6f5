def join_words(words):
    """Join words into one line."""
    return " ".join(word.strip() for word in words)


def shout(text):
    return text.upper() + "!"
