"""Shopping cart totals."""


def order_total(prices, tax_rate):
    subtotal = sum(prices)
    return round(subtotal * (1 + tax_rate), 2)


def describe(prices, tax_rate):
    total = order_total(prices, tax_rate)
    return f"{len(prices)} items, {total:.2f} total"
