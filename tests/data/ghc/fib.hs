-- A small program for GHC's profiler (see record.sh): a recursive
-- function, a list that allocates, and a where-bound helper.
import Data.List (foldl')

fib :: Int -> Integer
fib n = if n < 2 then toInteger n else fib (n - 1) + fib (n - 2)

squares :: Int -> [Int]
squares n = map sq [1 .. n]
  where
    sq x = x * x

main :: IO ()
main = do
  print (fib 25)
  print (foldl' (+) 0 (squares 2000000))
