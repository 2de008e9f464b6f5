import sys

sys.path.insert(0, ".")
import grades

got = grades.letter_grades({"a": 95, "b": 80, "c": 60, "d": 49, "e": 50, "f": 0})
assert got == {"a": "A", "b": "B", "c": "C", "d": "D", "e": "C", "f": "D"}, got
