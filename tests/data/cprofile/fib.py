# A small program for tflame's cProfile tests: recursion, mutual
# recursion, built-ins and a function called from two places.
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def work(k):
    total = 0
    for i in range(k):
        total += sum(range(i % 50))
    return total


def parse():
    return [work(200) for _ in range(20)]


def render():
    return sorted(str(work(300)) for _ in range(20))


def main():
    fib(18)
    is_even(300)
    parse()
    render()


main()
