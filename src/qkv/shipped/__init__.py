"""What students get and run themselves: the public checks, their fixed cases, and `qkv check`."""
