collapse --addrs --kernel tests/data/recorded/system-wide.txt
