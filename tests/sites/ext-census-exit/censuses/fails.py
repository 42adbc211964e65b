import sys

print("reading the parameters", file=sys.stderr)
print("boom: no moves were given", file=sys.stderr)
sys.exit(3)
