# tests/bench/icount/rates.awk: the record-rate curve of the icount bench,
# from the consoles of the boots rates-none (no module) and rates-reading
# (the timer loop tracked, a reader taking every record). A console line
#   ICOUNT run timer-PERIOD MODE NS HITS CHAINS
# is one round of 2000 wakeups at PERIOD us (report.awk). Prints the table,
# writes OUT.dat and the gnuplot script OUT.gp (which draws OUT.svg).
# Exits 1 when a period lacks one of the two boots' rounds.
BEGIN { loops = 2000 }
/^ICOUNT run timer-[0-9]+ / {
	p = substr($3, 7) + 0; m = $4
	ns[m, p] = $5; hits[m, p] = $6; chains[m, p] = $7
	if (!(p in seen)) { seen[p] = 1; per[++np] = p }
}
END {
	# longest period first
	for (i = 1; i <= np; i++)
		for (j = i + 1; j <= np; j++)
			if (per[j] > per[i]) { t = per[i]; per[i] = per[j]; per[j] = t }
	printf "\nrecord-rate curve (%s, %s): the timer loop at each period, tracked, a reader (cat) taking\n", board, kver
	printf "every record, against no module; instructions a wakeup (one chain, one record each)\n"
	printf "  %10s %12s %12s %14s %12s %14s\n", "period us", "wakeups/s", "chains/s", "+instr/wakeup", "hits/wakeup", "chains/wakeup"
	bad = 0
	printf "" >(out ".dat")
	for (i = 1; i <= np; i++) {
		p = per[i]
		if (!(("rates-none", p) in ns) || !(("rates-reading", p) in ns)) {
			printf "rates.awk: period %d us lacks a round of rates-none or rates-reading\n", p
			bad = 1
			continue
		}
		add = (ns["rates-reading", p] - ns["rates-none", p]) / loops
		c = chains["rates-reading", p] / loops
		printf "  %10d %12.0f %12.0f %14.0f %12.2f %14.2f\n", p, 1e6 / p, 1e6 / p * c, add,
			hits["rates-reading", p] / loops, c
		printf "%d %.0f %.0f\n", p, 1e6 / p, add >>(out ".dat")
	}
	close(out ".dat")
	gp = out ".gp"
	printf "set terminal svg size 720,420 dynamic font 'sans,11'\n" >gp
	printf "set output '%s.svg'\n", out >>gp
	printf "set title 'rtmon.ko (%s): instructions a tracked wakeup, with a reader, against the record rate'\n", kver >>gp
	printf "set xlabel 'records a second'\nset ylabel 'guest instructions a wakeup over no module'\n" >>gp
	printf "set logscale x; set yrange [0:*]; set grid; set key top right\n" >>gp
	printf "plot '%s.dat' using 2:3 with linespoints title 'timer loop, tracked, reader taking records'\n", out >>gp
	close(gp)
	exit bad
}
