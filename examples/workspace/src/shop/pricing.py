"""Prices, discounts and taxes."""

TAX_RATE = 0.20


def apply_discount(price, percent):
    """Return price reduced by percent (0-100)."""
    return price - price * percent


def with_tax(price):
    return price * (1 + TAX_RATE)
