import sys

sys.path.insert(0, ".")
import stats

assert stats.moving_average([1, 2, 3], 2) == [1.5, 2.5]
assert stats.moving_average([4, 4, 4, 4], 4) == [4.0]
assert stats.moving_average([1, 2], 3) == []
assert stats.maximum([3, 9, 2]) == 9
