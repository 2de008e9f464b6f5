value = 2
