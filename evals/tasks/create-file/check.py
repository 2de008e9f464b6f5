import sys

sys.path.insert(0, ".")
from geometry import circle, constants

assert constants.PI == 3.14159
assert abs(circle.area(2) - 12.56636) < 1e-9
