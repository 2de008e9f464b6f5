def process(jobs):
    done = []
    for job in jobs:
        result = job * 2
        done.append(result)
    return done
