"""A tiny inventory."""

LOW_STOCK = 5


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count):
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name, count):
        self.items[name] = self.items.get(name, 0) - count

    def low_stock(self):
        return sorted(name for name, count in self.items.items() if count < LOW_STOCK)

    def total(self):
        return sum(self.items.values())
