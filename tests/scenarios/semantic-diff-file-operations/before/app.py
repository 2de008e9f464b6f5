import os


def greet(name):
    """Say hello."""
    return "Hello, " + name


def add(a, b):
    return a + b


def main():
    print(greet("world"))
    print(add(1, 2))
