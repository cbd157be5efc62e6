# tests/bench/icount/curve.awk: the targets curve of the icount bench, from
# the consoles of the boots "none" and "idle" (no target) and of one boot
# per count of targets (targets-N: N targets that no task of the workloads
# is, any IRQ or timer). A console line
#   ICOUNT run WORKLOAD MODE NS HITS CHAINS
# is one round (report.awk); "ICOUNT targets MODE WANTED INSTALLED" says how
# many targets the module took. Prints the table, writes OUT.dat and the
# gnuplot script OUT.gp (which draws OUT.svg). Exits 1 on a boot without
# its rounds.
BEGIN {
	units["pingpong"] = 20000; units["timer"] = 2000
	np = 0
}
FNR == 1 {
	f = FILENAME
	m = ""
	file[++nf] = f
}
/^ICOUNT run (pingpong|timer) / {
	w = $3; m = $4
	ns[m, w] += $5; hits[m, w] += $6; chains[m, w] += $7; n[m, w]++
	mode[nf] = m
}
/^ICOUNT targets / { want[$3] = $4; got[$3] = $5 }
END {
	bad = 0
	for (i = 1; i <= nf; i++) {
		m = mode[i]
		if (m == "" || !n[m, "pingpong"] || !n[m, "timer"]) {
			printf "curve.awk: %s has no pingpong and timer rounds\n", file[i]
			bad = 1
			continue
		}
		for (w in units) {
			per[m, w] = ns[m, w] / n[m, w] / units[w]
			hper[m, w] = hits[m, w] / n[m, w] / units[w]
			cper[m, w] = chains[m, w] / n[m, w] / units[w]
		}
	}
	if (bad || !n["none", "pingpong"] || !n["idle", "pingpong"])
		exit 1
	printf "\nthe targets curve (%s, %s): N targets that no task of the workloads is\n", board, kver
	printf "(pingpong: the no-chain path; timer: a sleeper's expiry starts a chain whatever the\n"
	printf "task, since it may hand off to a target; +ns against \"none\", one round a boot)\n"
	printf "  %8s %9s %15s %14s %16s %16s\n", "targets", "wanted", "pingpong +ns/hit", "hits/round", \
		"timer +ns/wakeup", "chains/wakeup"
	print "# targets pingpong_ns_per_hit timer_ns_per_wakeup" > (out ".dat")
	for (i = 2; i <= nf; i++) {
		m = mode[i]
		t = m == "idle" ? 0 : got[m]
		wn = m == "idle" ? 0 : want[m]
		ph = (per[m, "pingpong"] - per["none", "pingpong"]) / hper[m, "pingpong"]
		tw = per[m, "timer"] - per["none", "timer"]
		printf "  %8d %9d %15.1f %14.2f %16.0f %16.2f\n", t, wn, ph, hper[m, "pingpong"], tw, cper[m, "timer"]
		if (t + 0 != wn + 0)
			printf "           (the module took %d of %d targets: RTM_MAX_TARGETS)\n", t, wn
		printf "%d %.2f %.1f\n", t, ph, tw > (out ".dat")
		if (i > 2) { lastm = m; lastt = t; lastph = ph; lasttw = tw }
		if (i == 3) { firstm = m; firstt = t; firstph = ph; firsttw = tw }
	}
	close(out ".dat")
	if (firstm != "" && lastm != "" && lastt > firstt) {
		d = lastph - firstph
		printf "  no-chain path, %d -> %d targets: %+.1f ns a hit (goal: no growth) %s\n", firstt, lastt, d, \
			(d <= 0.5 && d >= -0.5) ? "- flat" : "- GROWS"
		printf "  timer wakeup, %d -> %d targets: %+.0f ns a wakeup (%+.1f a target)\n", firstt, lastt, \
			lasttw - firsttw, (lasttw - firsttw) / (lastt - firstt)
	}
	gp = out ".gp"
	print "set terminal svg size 720,420 dynamic font 'sans,11'" > gp
	printf "set output '%s.svg'\n", out > gp
	printf "set title 'rtmon.ko: cost against the number of targets (%s, guest instructions)'\n", kver > gp
	print "set xlabel 'targets (none of them the workload)'" > gp
	print "set ylabel 'pingpong: instructions per probe hit (no chain)'" > gp
	print "set y2label 'timer loop: instructions per wakeup'" > gp
	print "set ytics nomirror; set y2tics; set yrange [0:*]; set y2range [0:*]; set key bottom right; set grid" > gp
	printf "plot '%s.dat' using 1:2 with linespoints title 'no-chain hit (pingpong)', \\\n", out > gp
	printf "     '%s.dat' using 1:3 axes x1y2 with linespoints title 'sleeper wakeup (timer loop)'\n", out > gp
	close(gp)
}
