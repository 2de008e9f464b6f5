def letter_grades(scores):
    result = {}
    for name, score in scores.items():
        if score >= 90:
            result[name] = "A"
        elif score >= 75:
            result[name] = "B"
        else:
            result[name] = "C"
    return result
