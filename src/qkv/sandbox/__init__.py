"""Running untrusted student code: the trusted host, the zygote and its confined children, the wire."""
