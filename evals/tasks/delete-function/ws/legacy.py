import hashlib


def checksum(data):
    return hashlib.sha256(data).hexdigest()


def old_checksum(data):
    """Deprecated: MD5 is not safe. Use checksum()."""
    return hashlib.md5(data).hexdigest()


def short_checksum(data):
    return checksum(data)[:8]
