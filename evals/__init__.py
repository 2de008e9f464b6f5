"""A real model in the loop: a task suite and a runner that measures how well a model writes
our edit formats (compliance, apply success, task success, after one retry).

`evals/run --help` for the runner; docs/evals.md for what it measures and the results.
"""
