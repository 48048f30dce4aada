dump --view=sandwich --height=5 --width=80 --function='^fib$' tests/data/recorded/pid-tid-period.txt
