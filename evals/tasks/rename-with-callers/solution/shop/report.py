from shop.cart import order_total


def daily_report(orders, tax_rate):
    return [order_total(order, tax_rate) for order in orders]
