import sys
import time

print("progress: 0/1", file=sys.stderr)
print("thinking", file=sys.stderr, flush=True)
time.sleep(50)
print("{}")
