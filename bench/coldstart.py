"""Launches a server RUNS times and prints the median time, in ms, from launch to its first
HTTP 200 on 127.0.0.1:PORT (polling every 0.5 ms). Usage: coldstart.py RUNS PORT COMMAND..."""
import socket
import statistics
import subprocess
import sys
import time

runs, port, command = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
REQUEST = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def first_status():
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(REQUEST)
            head = s.recv(64)
            return int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else None
    except OSError:
        return None


times = []
for _ in range(runs):
    started = time.perf_counter()
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            if first_status() == 200:
                times.append((time.perf_counter() - started) * 1000)
                break
            if server.poll() is not None:
                sys.exit(f"{command} exited with {server.returncode}")
            if time.perf_counter() - started > 60:
                sys.exit(f"{command}: no 200 within 60 s")
            time.sleep(0.0005)
    finally:
        server.terminate()
        server.wait()
    time.sleep(0.2)
print(f"{statistics.median(times):.1f}")
