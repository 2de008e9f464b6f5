RETRIES = 3
TIMEOUT = 60  # seconds


def backoff(n):
    return 2 ** n
