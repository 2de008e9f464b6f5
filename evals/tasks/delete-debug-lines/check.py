import contextlib
import io
import pathlib
import sys

sys.path.insert(0, ".")
import worker

out = io.StringIO()
with contextlib.redirect_stdout(out):
    assert worker.process([1, 2]) == [2, 4]
assert out.getvalue() == ""
assert "DEBUG" not in pathlib.Path("worker.py").read_text()
