class User:
    def save(self):
        db.write("users", self)


class Order:
    def save(self):
        db.write("orders", self)
