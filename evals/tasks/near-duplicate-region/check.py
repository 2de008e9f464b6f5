import sys

sys.path.insert(0, ".")
import handlers

assert handlers.handle_update({"user": "a"}) == {"status": 422, "error": "nothing to update"}
assert handlers.handle_create({"user": "a"}) == {"status": 400, "error": "empty body"}
assert handlers.handle_update({"user": "a", "body": "x"}) == {"status": 200}
assert handlers.handle_create({}) == {"status": 401, "error": "login required"}
assert handlers.handle_update({}) == {"status": 401, "error": "login required"}
