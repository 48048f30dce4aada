# A small program for stackprof to record (see record.sh): two call
# paths of different cost, allocation, and garbage collection.
def leaf(n)
  s = 0
  n.times { |i| s += i * i }
  s
end

def make(n)
  Array.new(n) { |i| "s#{i}" }
end

def fast
  leaf(20_000).to_s
end

def slow
  leaf(60_000)
  make(2_000)
end

def run(rounds)
  rounds.times do
    fast
    slow
  end
end
