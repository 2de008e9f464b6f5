"""Where the app keeps its files."""

APP_NAME = "notes"


def config_file(home):
    return home + "/." + APP_NAME + "/config.ini"
