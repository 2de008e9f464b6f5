def handle_create(request):
    if not request.get("user"):
        return {"status": 401, "error": "login required"}
    if not request.get("body"):
        return {"status": 400, "error": "empty body"}
    return {"status": 201}


def handle_update(request):
    if not request.get("user"):
        return {"status": 401, "error": "login required"}
    if not request.get("body"):
        return {"status": 422, "error": "nothing to update"}
    return {"status": 200}
