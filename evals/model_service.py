"""Serve a GGUF model on 127.0.0.1 with llama.cpp's OpenAI-compatible HTTP API (xllamacpp).

Runs under the model runtime's own interpreter (``.models/runtime/bin/python``, made by
``scripts/setup-model``), never the project's: it imports only the standard library and
xllamacpp. It prints one JSON line, ``{"endpoint": "http://127.0.0.1:PORT/v1"}``, once the
model is loaded, then serves until its standard input closes (the parent exited or is done).

    python evals/model_service.py --model M.gguf [--threads 1] [--ctx 16384] [--seed 1234]

One thread by default: llama.cpp's worker threads spin while they wait, so two threads on a
machine whose cores are busy slow generation down instead of speeding it up.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=16384)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx
    params.n_parallel = 1  # one slot: consecutive requests reuse its cached prompt prefix
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.sampling.seed = args.seed
    params.sampling.temp = 0.0
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # any free port; the address is printed below
    server = xllamacpp.Server(params)
    address = server.listening_address  # "http://127.0.0.1:PORT"
    print(json.dumps({"endpoint": f"{address.rstrip('/')}/v1"}), flush=True)
    sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
