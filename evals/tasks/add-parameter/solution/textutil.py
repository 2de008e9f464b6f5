def join_words(words, sep=" "):
    """Join words into one line."""
    return sep.join(word.strip() for word in words)


def shout(text):
    return text.upper() + "!"
