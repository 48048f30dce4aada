#!/usr/bin/perl
# Replicate a recorded system-wide perf script text to a given size.
#
# usage: sys-gen.pl RECORDED.perf.txt TARGET_BYTES [THREADS] > out.txt
#
# Each pass over the recording moves the clock forward by the recording's
# span, so that time keeps increasing, and the passes cycle through
# variants of the thread ids (tid + k * 1000000, for k below a number of
# variants chosen so that the output has about THREADS threads, default
# 450, and at least twice the recording's), as a longer recording of a
# busy machine would. The frame lines are copied as recorded: the distinct
# addresses and modules are those of the real recording. Idle (tid 0)
# and the odd tid -1 stay as they are. It stops after the pass that
# reaches TARGET_BYTES.
use strict;
use warnings;

my ($input, $target, $threads) = @ARGV;
die "usage: $0 RECORDED TARGET_BYTES [THREADS]\n" unless defined $target;
$threads //= 450;

open(my $in, '<', $input) or die "cannot open $input: $!\n";
# Each sample as [text before the tid, tid, text between tid and time,
# the time's whole seconds, the rest: the time's fraction, the header's
# tail and the frame lines].
my @samples;
my %tids;
{
	local $/ = "";    # paragraph mode: one sample per record
	while (my $s = <$in>) {
		next if $s =~ /^#/;
		$s .= "\n" unless $s =~ /\n\n\z/;
		# comm can hold spaces and digits: the tid is the number right
		# before "[cpu]" (with -F pid, tid: "pid/tid"), then the time.
		$s =~ /\A(.*?\S\s+)(-?\d+(?:\/-?\d+)?)(\s+(?:\[\d+\]\s+)?)(\d+)\.(\d+)(:.*)\z/s
			or die "$input: cannot read the header of: " . (split /\n/, $s)[0] . "\n";
		push @samples, [$1, $2, $3, $4, ".$5$6"];
		$tids{$2} = 1;
	}
}
close($in);
die "no samples in $input\n" unless @samples;

# Whole seconds, so that the fraction is copied as printed.
my $span = $samples[-1][3] - $samples[0][3] + 1;
my $recorded = keys %tids;
my $variants = int(($threads + $recorded - 1) / $recorded);
$variants = 2 if $variants < 2;
printf STDERR "%d samples of %d threads, %d s a pass; %d thread variants\n",
	scalar(@samples), $recorded, $span, $variants;

sub shift_tid {
	my ($id, $k) = @_;
	return join('/', map { $_ <= 0 ? $_ : $_ + $k * 1000000 } split(m{/}, $id));
}

binmode(STDOUT);
my $written = 0;
for (my $pass = 0; $written < $target; $pass++) {
	my $k = $pass % $variants;
	my $dt = $pass * $span;
	my $buf = '';
	for my $s (@samples) {
		$buf .= $s->[0] . ($k ? shift_tid($s->[1], $k) : $s->[1]) . $s->[2] .
			($s->[3] + $dt) . $s->[4];
		if (length($buf) > 1 << 20) {
			print $buf;
			$written += length($buf);
			$buf = '';
		}
	}
	print $buf;
	$written += length($buf);
}
