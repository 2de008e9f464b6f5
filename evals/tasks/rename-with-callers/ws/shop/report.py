from shop.cart import compute_total


def daily_report(orders, tax_rate):
    return [compute_total(order, tax_rate) for order in orders]
