def process(jobs):
    done = []
    for job in jobs:
        print("DEBUG: processing", job)
        result = job * 2
        print("DEBUG: result", result)
        done.append(result)
    return done
