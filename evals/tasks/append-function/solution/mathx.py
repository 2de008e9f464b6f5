def square(x):
    return x * x


def cube(x):
    return x * x * x


def clamp(x, low, high):
    return max(low, min(x, high))
