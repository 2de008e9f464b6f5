import subprocess
import sys

sys.path.insert(0, ".")
from app import convert

assert convert.fahrenheit_to_celsius(212) == 100
assert convert.celsius_to_fahrenheit(100) == 212


def run(*args):
    return subprocess.run([sys.executable, "-m", "app.main", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


assert float(run("100")) == 212
assert float(run("212", "--to-celsius")) == 100
