import json as js


def roundtrip(data):
    return js.loads(js.dumps(data))


print(roundtrip({"a": 1}))
