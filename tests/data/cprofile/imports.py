# A small program for tflame's cProfile tests: it imports a module at run
# time, so builtins.exec runs both the script and, from importlib, the
# module, and it uses a generator and mutual recursion.
#
#   python3 -m cProfile -o imports.prof imports.py
import colorsys


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def a(n):
    return n if n <= 0 else b(n - 1) + 1


def b(n):
    return a(n - 1) + 1


def hues(k):
    for i in range(k):
        yield colorsys.hsv_to_rgb(i / k, 0.5, 0.5)


def main():
    for _ in range(20):
        is_even(100)
        a(60)
    return sum(r for r, g, bl in hues(2000))


main()
