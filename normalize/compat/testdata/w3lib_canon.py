#!/usr/bin/python3
"""Print w3lib.url.canonicalize_url of each line of a file, for
normalize's TestW3libDifferential (and TestW3libPythonSpeed).

usage: w3lib_canon.py [--keep-fragments] [--drop-blank] [--bench N] FILE

FILE is read as bytes and split on b"\\n" (a last empty piece is no line);
each line is decoded as UTF-8 and canonicalized as a str, and one JSON
array per line is written to stdout: ["ok", canonical] or
["err", exception class name, message] (["err", "UnicodeDecodeError", ...]
for a line that is not UTF-8). JSON keeps any text ASCII-safe.

--bench N instead canonicalizes every decodable line N times and prints
one line: "<urls> <total ns> <ns per url>".
"""
import json
import sys
import time

try:
    from w3lib.url import canonicalize_url
    import w3lib
except ImportError as e:  # the Go test skips (or fails) on this
    print("w3lib missing: %s" % e, file=sys.stderr)
    sys.exit(3)


def main(argv):
    keep_fragments = False
    keep_blank = True
    bench = 0
    args = []
    it = iter(argv)
    for a in it:
        if a == "--keep-fragments":
            keep_fragments = True
        elif a == "--drop-blank":
            keep_blank = False
        elif a == "--bench":
            bench = int(next(it))
        elif a == "--version":
            print(getattr(w3lib, "__version__", "?"))
            return 0
        else:
            args.append(a)
    with open(args[0], "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if bench:
        strs = []
        for b in lines:
            try:
                strs.append(b.decode("utf-8"))
            except UnicodeDecodeError:
                pass
        t0 = time.perf_counter_ns()
        for _ in range(bench):
            for s in strs:
                try:
                    canonicalize_url(s, keep_blank_values=keep_blank,
                                     keep_fragments=keep_fragments)
                except Exception:
                    pass
        ns = time.perf_counter_ns() - t0
        n = len(strs) * bench
        print(n, ns, ns / n if n else 0)
        return 0
    out = sys.stdout
    for b in lines:
        try:
            s = b.decode("utf-8")
            r = ["ok", canonicalize_url(s, keep_blank_values=keep_blank,
                                        keep_fragments=keep_fragments)]
        except Exception as e:  # noqa: BLE001 - every raise is a result
            r = ["err", type(e).__name__, str(e)]
        out.write(json.dumps(r))
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
