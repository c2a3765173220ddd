"""The commands of `qkv`, a module per command group, each with `add_parser(sub, common)`."""
