import sys

sys.path.insert(0, ".")
import inventory

assert inventory.LOW_STOCK == 3
inv = inventory.Inventory()
inv.add("bolt", 4)
inv.add("nut", 2)
assert inv.low_stock() == ["nut"]
inv.remove("bolt", 1)
assert inv.items["bolt"] == 3
try:
    inv.remove("nut", 5)
except ValueError as exc:
    assert "not enough stock" in str(exc)
else:
    raise AssertionError("remove did not raise")
assert inv.items["nut"] == 2
assert inv.total() == 5
