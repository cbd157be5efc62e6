# tests/bench/icount/cpus.awk: the cpu-scaling curve of the icount bench,
# from the consoles of the boots cpus-N-MODE (N vCPUs; MODE none, empty or
# tracking), each with rounds of "steady pingpong-cpus 5000": a pingpong
# pair pinned to every vCPU. A console line
#   ICOUNT start T N cpus, mode MODE
# gives the vCPUs, and each
#   ICOUNT run pingpong-cpus MODE NS HITS CHAINS
# a round (report.awk). Prints the table (means over the rounds, and their
# spread), writes OUT.dat and the gnuplot script OUT.gp (which draws
# OUT.svg). Exits 1 when a count of vCPUs lacks one of the three modes.
BEGIN { rounds = 5000 }
# (the console may put the firmware's escapes before the first line)
/ICOUNT start / { for (i = 2; i <= NF; i++) if ($i == "cpus,") ncpu = $(i - 1) }
/^ICOUNT run pingpong-cpus / {
	m = $4; k = ++n[ncpu, m]
	ns[ncpu, m] += $5; hits[ncpu, m] += $6
	if (k == 1 || $5 < lo[ncpu, m]) lo[ncpu, m] = $5
	if (k == 1 || $5 > hi[ncpu, m]) hi[ncpu, m] = $5
	if (!(ncpu in seen)) { seen[ncpu] = 1; cpu[++nc] = ncpu }
}
function spread(c, m) { return lo[c, m] ? (hi[c, m] - lo[c, m]) / lo[c, m] * 100 : 0 }
END {
	for (i = 1; i <= nc; i++)
		for (j = i + 1; j <= nc; j++)
			if (cpu[j] < cpu[i]) { t = cpu[i]; cpu[i] = cpu[j]; cpu[j] = t }
	printf "\ncpu-scaling curve (%s, %s): a pingpong pair pinned to each vCPU, %d rounds each, means of\n", board, kver, rounds
	printf "the boot's runs; +/hit: guest instructions a probe hit over no module\n"
	printf "  %6s %6s %15s %11s %13s %15s %15s %9s\n", "vCPUs", "runs", "none: ns/round", "hits/round", \
		"empty: +/hit", "tracking: +/hit", "runs' spread", "x none"
	bad = 0
	printf "" >(out ".dat")
	for (i = 1; i <= nc; i++) {
		c = cpu[i]
		if (!n[c, "none"] || !n[c, "empty"] || !n[c, "tracking"] || !hits[c, "tracking"]) {
			printf "cpus.awk: %d vCPUs lack a boot of none, empty or tracking (or its hits)\n", c
			bad = 1
			continue
		}
		per = rounds * c
		h = hits[c, "tracking"] / n[c, "tracking"]
		base = ns[c, "none"] / n[c, "none"]
		e = (ns[c, "empty"] / n[c, "empty"] - base) / h
		t = (ns[c, "tracking"] / n[c, "tracking"] - base) / h
		sp = spread(c, "none")
		if (spread(c, "empty") > sp) sp = spread(c, "empty")
		if (spread(c, "tracking") > sp) sp = spread(c, "tracking")
		# the spread of the runs as instructions a hit: below it, noise
		noise = sp / 100 * base / h
		printf "  %6d %6d %15.1f %11.2f %13.1f %15.1f %8.2f%% (%4.0f) %9.4f%s\n", c, n[c, "none"], base / per, \
			h / per, e, t, sp, noise, ns[c, "tracking"] / n[c, "tracking"] / base, \
			(t < noise || e < noise) ? "  within the spread" : ""
		printf "%d %.1f %.1f %.1f\n", c, e, t, noise >>(out ".dat")
	}
	printf "(runs' spread: the largest of the three modes' (max - min) / min over the runs of a boot, and\n"
	printf "the same in instructions a hit; an addition below it is not rtmon's cost)\n"
	close(out ".dat")
	gp = out ".gp"
	printf "set terminal svg size 720,420 dynamic font 'sans,11'\n" >gp
	printf "set output '%s.svg'\n", out >>gp
	printf "set title 'rtmon.ko (%s): instructions a no-chain probe hit against vCPUs'\n", kver >>gp
	printf "set xlabel 'vCPUs (a pingpong pair pinned to each)'\nset ylabel 'guest instructions a probe hit over no module'\n" >>gp
	printf "set logscale x 2; set grid; set key top left\n" >>gp
	printf "plot '%s.dat' using 1:2 with linespoints title 'empty probes', '' using 1:3 with linespoints title 'tracking', \\\n", out >>gp
	printf "     '' using 1:4 with lines dashtype 2 title 'runs spread'\n" >>gp
	close(gp)
	exit bad
}
