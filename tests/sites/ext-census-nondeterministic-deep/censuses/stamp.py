import json
import sys
import time

json.load(sys.stdin)
# Three hundred values the same at each run, then one that is not: the diagnostic must
# name where the two answers part, not show both cut at the same prefix.
json.dump({"values": list(range(300)), "rows": [{"g": 0}, {"g": time.time_ns()}]}, sys.stdout)
