def letter_grades(scores):
    result = {}
    for name, score in scores.items():
        if score >= 90:
            result[name] = "A"
        elif score >= 75:
            result[name] = "B"
        elif score >= 50:
            result[name] = "C"
        else:
            result[name] = "D"
    return result
