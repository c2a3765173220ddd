"""The commands of `qkv`, a module per command group, each with `add_parser(sub, common)`.

A command imports the engine modules it runs inside the function that runs it: loading them all
would make every command, `qkv --help` and a student's `qkv check` among them, start in about 2.5
cold numpy imports instead of 0.45 (scripts/bench_cli_start.py).
"""
