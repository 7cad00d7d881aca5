"""The longest time a command leaves its terminal unchanged: how long a user waits without a sign of progress.

Usage: python bench/silence.py COMMAND [ARG ...]
Runs the command with its stderr (where the progress bars go) read as it comes (its stdout passes through), and
notes the time of every change to the terminal (every carriage return or newline written). Then prints the
command's wall time, its exit code, the number of updates, the three longest silences with the text shown just
before each (which stage was silent), and the machine's load (``uptime``) before and after: the machine is shared.
"""
import subprocess
import sys
import time


def main(command: list[str]) -> None:
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    start = last = time.perf_counter()
    gaps, line, shown = [], b"", ""
    process = subprocess.Popen(command, stderr=subprocess.PIPE)           # its stdout passes through
    while chunk := process.stderr.read1(4096):
        for byte in chunk:
            if byte in b"\r\n":
                now = time.perf_counter()
                gaps.append((now - last, shown))
                last, shown, line = now, line.decode(errors="replace").strip() or shown, b""
            else:
                line += bytes([byte])
    code = process.wait()
    end = time.perf_counter()
    gaps.append((end - last, shown))
    print(f"{' '.join(command)}: exit {code}, {end - start:.1f} s, {len(gaps)} updates")
    for seconds, text in sorted(gaps, reverse=True)[:3]:
        print(f"  silent {seconds:6.1f} s after: {text[:110]}")
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main(sys.argv[1:])
