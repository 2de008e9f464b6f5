import pathlib
import sys

sys.path.insert(0, ".")
from shop import cart, report

assert hasattr(cart, "order_total") and not hasattr(cart, "compute_total")
assert cart.order_total([10, 20], 0.1) == 33.0
assert cart.describe([10, 20], 0.1) == "2 items, 33.00 total"
assert report.daily_report([[10], [5, 5]], 0.0) == [10, 10]
for name in ("shop/cart.py", "shop/report.py"):
    assert "compute_total" not in pathlib.Path(name).read_text()
