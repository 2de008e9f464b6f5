"""Where the app keeps its files."""
import os

APP_NAME = "notes"


def config_file(home):
    return os.path.join(home, "." + APP_NAME, "config.ini")
