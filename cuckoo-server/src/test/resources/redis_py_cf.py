"""redis-py's CF client (r.cf()) against a server on the port given as argv[1].

Follows redis-py's tests/test_bloom.py cuckoo cases; prints PASS or raises.
"""
import sys

import redis
from redis.exceptions import ResponseError

r = redis.Redis(host="127.0.0.1", port=int(sys.argv[1]))
r.flushall()
cf = r.cf()

assert cf.create("cuckoo", 1000)
assert cf.create("cuckoo_e", 1000, expansion=1)
assert cf.create("cuckoo_bs", 1000, bucket_size=4)
assert cf.create("cuckoo_mi", 1000, max_iterations=10)

assert cf.add("cuckoo", "filter")
assert not cf.addnx("cuckoo", "filter")
assert 1 == cf.addnx("cuckoo", "newItem")
assert [1] == cf.insert("captest", ["foo"])
assert [1] == cf.insert("captest", ["foo"], capacity=1000)
assert [1] == cf.insertnx("captest", ["bar"])
assert [1] == cf.insertnx("captest", ["food"], nocreate="1")
assert [0, 0, 1] == cf.insertnx("captest", ["foo", "bar", "baz"])
assert [0] == cf.insertnx("captest", ["bar"], capacity=1000)
assert [1] == cf.insert("empty1", ["foo"], capacity=1000)
assert [1] == cf.insertnx("empty2", ["bar"], capacity=1000)
info = cf.info("captest")
assert 5 == info.insertedNum, info.insertedNum
assert 0 == info.deletedNum
assert 1 == info.filterNum

assert cf.create("cuckoo2", 1000)
assert cf.add("cuckoo2", "filter")
assert cf.exists("cuckoo2", "filter")
assert not cf.exists("cuckoo2", "notexist")
assert 1 == cf.count("cuckoo2", "filter")
assert 0 == cf.count("cuckoo2", "notexist")
assert cf.delete("cuckoo2", "filter")
assert 0 == cf.count("cuckoo2", "filter")

try:
    cf.insert("missing", ["x"], nocreate=True)
    raise AssertionError("no error")
except ResponseError as e:
    assert str(e) == "not found", str(e)
try:
    cf.add("full", "x") and cf.create("full", 1000)
    raise AssertionError("no error")
except ResponseError as e:
    assert str(e) == "item exists", str(e)

it, data = 0, None
while True:
    it, data = cf.scandump("cuckoo", it)
    if it == 0:
        break
    cf.loadchunk("restored", it, data)
assert cf.exists("restored", "filter")
assert cf.info("restored").insertedNum == cf.info("cuckoo").insertedNum
print("PASS")
