import sys

from app.convert import celsius_to_fahrenheit, fahrenheit_to_celsius


def main(argv):
    value = float(argv[1])
    if len(argv) > 2 and argv[2] == "--to-celsius":
        print(fahrenheit_to_celsius(value))
    else:
        print(celsius_to_fahrenheit(value))


if __name__ == "__main__":
    main(sys.argv)
