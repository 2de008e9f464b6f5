import sys

sys.path.insert(0, ".")
import table

assert table.factor_077() == 77 * 2.5
assert table.factor_076() == 76 * 1.5
assert table.factor_078() == 78 * 1.5
assert table.lookup("120") == 180.0
assert sum(1 for name in dir(table) if name.startswith("factor_")) == 130
