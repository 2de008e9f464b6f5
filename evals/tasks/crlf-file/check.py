import configparser
import pathlib

data = pathlib.Path("settings.ini").read_bytes()
assert data.count(b"\r\n") == data.count(b"\n"), "line endings are no longer all CRLF"
config = configparser.ConfigParser()
config.read_string(data.decode())
assert config["server"]["port"] == "9090"
assert config["server"]["workers"] == "4"
assert config["server"]["host"] == "localhost"
assert config["logging"]["level"] == "info"
