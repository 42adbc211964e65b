import json

# A mean that is a float, the share it comes from, a share of 1 in 8, text that looks like
# a number, and a list.
print(json.dumps({
    "mean": 10132 / 2001,
    "total": 10132,
    "count": 2001,
    "share": {"num": 298, "den": 2001},
    "eighth": {"num": 1, "den": 8},
    "code": "0.07",
    "label": "P-position",
}))
