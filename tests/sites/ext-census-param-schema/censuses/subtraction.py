import sys

# Never run: every call of this site has a parameter outside the schema.
sys.exit("a call with a bad parameter ran")
