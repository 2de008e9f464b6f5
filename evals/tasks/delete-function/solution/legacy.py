import hashlib


def checksum(data):
    return hashlib.sha256(data).hexdigest()


def short_checksum(data):
    return checksum(data)[:8]
