#!/usr/bin/perl
# Generate a large perf script file by varying a recorded one.
#
# usage: gen-perf.pl SEED.perf.txt TARGET_BYTES > out.txt
#
# Each pass over the seed's samples shifts the times forward, spreads the
# samples over more threads and renames a share of the leaf frames, so the
# output has many more distinct threads, frames and stacks than the seed,
# as a long real recording would.
use strict;
use warnings;

my ($seed, $target) = @ARGV;
die "usage: $0 SEED TARGET_BYTES\n" unless defined $target;

open(my $in, '<', $seed) or die "cannot open $seed: $!\n";
my @samples;
{
	local $/ = "";    # paragraph mode: one sample per record
	while (my $s = <$in>) {
		next if $s =~ /^#/;
		$s .= "\n" unless $s =~ /\n\n\z/;
		push @samples, $s;
	}
}
close($in);
die "no samples in $seed\n" unless @samples;

my $written = 0;
my $pass = 0;
my $span = 10;    # seconds each pass moves the clock
binmode(STDOUT);
while ($written < $target) {
	for my $i (0 .. $#samples) {
		my $s = $samples[$i];
		my $k = ($pass * 7 + $i) % 97;
		# Spread over 16 threads of 4 processes.
		$s =~ s{^(\S.*?\s+)(\d+)(/(\d+))?}{
			my ($c, $a, $b) = ($1, $2, $4);
			defined $b ? $c . ($a + $k % 4) . '/' . ($b + $k % 16)
				   : $c . ($a + $k % 16)
		}e;
		# Move the time forward.
		$s =~ s{(\s)(\d+)\.(\d+):}{$1 . ($2 + $pass * $span) . ".$3:"}e;
		# Rename the leaf frame of one sample in three (up to 97 variants).
		if ($k % 3 == 0) {
			$s =~ s{^(\s+[0-9a-f]+ )([^\s+(]+)}{$1$2_v$k}m;
		}
		print $s;
		$written += length($s);
		last if $written >= $target;
	}
	$pass++;
}
