import sys

sys.path.insert(0, ".")
import mathx

assert mathx.clamp(5, 0, 3) == 3
assert mathx.clamp(-1, 0, 3) == 0
assert mathx.clamp(2, 0, 3) == 2
assert mathx.square(3) == 9 and mathx.cube(2) == 8
