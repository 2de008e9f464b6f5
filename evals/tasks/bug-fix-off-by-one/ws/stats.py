def moving_average(values, window):
    """Averages of each run of `window` consecutive values."""
    averages = []
    for start in range(len(values) - window):
        chunk = values[start:start + window]
        averages.append(sum(chunk) / window)
    return averages


def maximum(values):
    best = values[0]
    for value in values[1:]:
        if value > best:
            best = value
    return best
