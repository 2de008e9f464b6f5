"""A shopping cart."""

from .pricing import apply_discount, with_tax


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append((name, price, quantity))

    def subtotal(self):
        return sum(price * quantity for _, price, quantity in self.items)

    def total(self, discount_percent=0):
        return with_tax(apply_discount(self.subtotal(), discount_percent))
