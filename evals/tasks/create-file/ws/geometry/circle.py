from geometry.constants import PI


def area(radius):
    return PI * radius * radius
