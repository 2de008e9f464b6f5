import os


def greet(name):
    """Say hello."""
    return f"Hello, {name}"


def add(a, b):
    return a + b


def main():
    print(greet("world"))
    print(add(2, 3))
