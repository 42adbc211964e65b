import json
import sys
import time

json.load(sys.stdin)
json.dump({"now": time.time_ns()}, sys.stdout)
