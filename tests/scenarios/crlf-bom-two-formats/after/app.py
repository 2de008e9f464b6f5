import os


def greet(name):
    """Greet someone."""
    return "Hello, " + name


def add(a, b):
    total = a + b
    return total


def main():
    print(greet("world"))
    print(add(1, 2))
