#!/usr/bin/python3
"""Draw docs/performance.md's plots (PNG) from d12bench --json output, with gnuplot (Debian: gnuplot-nox).

    bench/plot.py RESULTS.json [MORE.json ...] --out DIR

Reads every row of every file (later files win for a row measured twice) and draws, from each row's minimum over
the interleaved repetitions (the statistic that survives a shared machine; docs/performance.md):
  cost_per_draw.png     ns per draw against recording size, feature off and on (d12bench --scaling rows)
  report_threads.png    stored messages per second against reporting threads (report_text stored, N threads)
  report_work_size.png  stored messages per second against the store's size (d12bench --scaling rows)
  peer.png              each peer row, d12rt beside vkd3d (ns per operation, log scale; d12bench --peer rows)
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def load(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            for row in json.load(f)["rows"]:
                rows[row["name"]] = row
    return rows


def draw(out, tmp, png, lines, commands, size="800,500"):
    """Write `lines` as a gnuplot data file and draw `png` in `out` with `commands(data_path)` (title, axes, plot).
    False, drawing nothing, when no row matched (`lines` empty)."""
    if not lines:
        return False
    data = os.path.join(tmp, png + ".dat")
    with open(data, "w") as f:
        f.write("\n".join(lines) + "\n")
    script = f"set terminal pngcairo size {size}\nset output '{os.path.join(out, png)}'\n" + commands(data)
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    return True


def plot_draws(rows, out, tmp):
    lines = []
    for k in range(3, 8):
        off = rows.get(f"draw in a recording of 10^{k} draws (feature off)")
        on = rows.get(f"draw in a recording of 10^{k} draws (feature on: correlation)")
        if off and on:
            lines.append(f"{10 ** k} {off['min_ns']} {on['min_ns']}")
    return draw(out, tmp, "cost_per_draw.png", lines, lambda data: f"""set title 'DrawInstanced: cost per draw against recording size (min over repetitions)'
set logscale x
set xlabel 'draws per recording'
set ylabel 'ns per draw'
set yrange [0:*]
set key top left
plot '{data}' using 1:2 with linespoints title 'feature off', '{data}' using 1:3 with linespoints title 'feature on: correlation'
""")


def messages_per_second(row):
    return 1e3 / row["min_ns"]


def plot_threads(rows, out, tmp):
    lines = []
    for n in (1, 2, 4, 8):
        row = rows.get(f"report_text stored, {n} thread" + ("s" if n > 1 else ""))
        if row and row["min_ns"] > 0:
            lines.append(f"{n} {messages_per_second(row)}")
    return draw(out, tmp, "report_threads.png", lines, lambda data: f"""set title 'Report path: stored messages per second, one queue, N threads (1e3 / min ns)'
set logscale x 2
set xlabel 'reporting threads'
set ylabel 'M stored messages / s'
set yrange [0:*]
set xtics (1, 2, 4, 8)
plot '{data}' using 1:2 with linespoints title 'd12rt, muted, no callback', 20 with lines dashtype 2 title 'budget 20 M/s'
""")


def plot_work_size(rows, out, tmp):
    lines = []
    for k in range(3, 8):
        row = rows.get(f"report_text stored, store of 10^{k}")
        if row and row["min_ns"] > 0:
            lines.append(f"{10 ** k} {messages_per_second(row)}")
    return draw(out, tmp, "report_work_size.png", lines, lambda data: f"""set title 'Report path: stored messages per second against the store size (count limit, full; 1e3 / min ns)'
set logscale x 10
set xlabel 'stored messages (count limit)'
set ylabel 'M stored messages / s'
set yrange [0:*]
plot '{data}' using 1:2 with linespoints title 'd12rt, muted, no callback', 20 with lines dashtype 2 title 'budget 20 M/s'
""")


def plot_peer(rows, out, tmp):
    lines = []
    for name, row in rows.items():
        match = re.match(r"d12rt: (.*)", name)
        if match and ("vkd3d: " + match.group(1)) in rows:
            label = match.group(1).replace('"', "'")
            lines.append(f"\"{label}\" {row['min_ns']} {rows['vkd3d: ' + match.group(1)]['min_ns']}")
    return draw(out, tmp, "peer.png", lines, lambda data: f"""set title 'The peer program: d12rt + reference driver beside vkd3d 1.2 + lavapipe (min over repetitions)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8
set logscale y
set ylabel 'ns per operation (log)'
set xtics rotate by -30 left font ',8'
set bmargin 10
plot '{data}' using 2:xtic(1) title 'd12rt', '' using 3 title 'vkd3d'
""", size="1000,600")


def main():
    args = sys.argv[1:]
    if "--out" not in args or args.index("--out") == 0:
        print(__doc__, file=sys.stderr)
        return 2
    out = args[args.index("--out") + 1]
    inputs = args[: args.index("--out")]
    rows = load(inputs)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        drawn = [name for name, plot in (("cost_per_draw.png", plot_draws), ("report_threads.png", plot_threads),
                                         ("report_work_size.png", plot_work_size), ("peer.png", plot_peer)) if plot(rows, out, tmp)]
    print("plot.py: wrote " + (", ".join(drawn) if drawn else "nothing (no matching rows)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
