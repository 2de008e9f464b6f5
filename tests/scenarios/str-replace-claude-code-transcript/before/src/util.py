RETRIES = 3
TIMEOUT = 30


def backoff(n):
    return 2 ** n
