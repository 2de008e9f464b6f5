import sys

from app.convert import celsius_to_fahrenheit


def main(argv):
    value = float(argv[1])
    print(celsius_to_fahrenheit(value))


if __name__ == "__main__":
    main(sys.argv)
