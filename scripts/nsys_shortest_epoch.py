"""Which of the one-epoch reports scripts/nsys_view.sh recorded to draw: the one whose `epoch`
range is shortest. Under a capture range nsys starts and stops collecting inside our epoch's
push and pop, so each epoch bar holds some of nsys's own work (tens of us on a quiet core,
milliseconds on a loaded one, at its ends) while the phases inside are as they ran: the
shortest epoch is the one that work (and other load) stretched least.

    python -m scripts.nsys_shortest_epoch EXPORT.sqlite...

Prints the chosen file, and every epoch's duration in us on stderr."""

import sqlite3
import sys


def longest_epoch_ns(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    (ns,) = db.execute(
        "SELECT max(n.end - n.start) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId"
        " WHERE n.eventType = 59 AND coalesce(s.value, n.text) = 'epoch'"
    ).fetchone()
    if ns is None:
        sys.exit(f"nsys_shortest_epoch: {path} holds no epoch range")
    return ns


def main(paths):
    if not paths:
        print("usage: python -m scripts.nsys_shortest_epoch EXPORT.sqlite...", file=sys.stderr)
        sys.exit(2)
    epochs = [(longest_epoch_ns(p), p) for p in paths]
    print(" ".join(f"{ns / 1000:.0f}" for ns, _ in epochs), file=sys.stderr)
    print(min(epochs)[1])


if __name__ == "__main__":
    main(sys.argv[1:])
