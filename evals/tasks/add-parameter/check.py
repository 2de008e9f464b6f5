import sys

sys.path.insert(0, ".")
import textutil

assert textutil.join_words(["a ", " b"]) == "a b"
assert textutil.join_words(["a", "b", "c"], sep="-") == "a-b-c"
assert textutil.join_words(["x", "y"], ", ") == "x, y"
assert textutil.shout("hi") == "HI!"
