import sys

sys.path.insert(0, ".")
import legacy

assert not hasattr(legacy, "old_checksum")
assert legacy.checksum(b"x") == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"
assert legacy.short_checksum(b"x") == "2d711642"
