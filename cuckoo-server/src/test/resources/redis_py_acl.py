"""redis-py's ACL calls against a server on port argv[1], as redis-py's own tests/test_commands.py
makes them (test_acl_cat_*, test_acl_dryrun, test_acl_deluser, test_acl_genpass,
test_acl_getuser_setuser, test_acl_list, test_acl_log, test_acl_users, test_acl_whoami,
test_acl_setuser_*): the same calls and checks, with CF commands where redis-py's tests use string
and hash commands this server does not have. Each case prints its name and PASS or the failure;
the last line is PASS if every case passed.
"""
import sys
import traceback

import redis
from redis import exceptions

port = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=port)
USER = "redis-py-user"
failed = []


def client_as(username, password="pass"):
    return redis.Redis(host="127.0.0.1", port=port, username=username, password=password)


def case(function):
    r.acl_deluser(USER, "u1", "u2", "u3", "u4")
    r.acl_log_reset()
    try:
        function()
        print(function.__name__, "PASS")
    except Exception:
        failed.append(function.__name__)
        print(function.__name__, "FAIL")
        traceback.print_exc(file=sys.stdout)


def test_acl_cat_no_category():
    categories = r.acl_cat()
    assert isinstance(categories, list)
    assert "read" in categories
    assert "cuckoo" in categories


def test_acl_cat_with_category():
    commands = r.acl_cat("read")
    assert isinstance(commands, list)
    assert "cf.exists" in commands
    assert "cf.add" not in commands


def test_acl_dryrun():
    r.acl_setuser(USER, keys=["*"], commands=["+cf.add"])
    assert r.acl_dryrun(USER, "cf.add", "key", "value") == b"OK"
    no_permissions_message = b"user has no permissions to run the"
    assert no_permissions_message in r.acl_dryrun(USER, "cf.exists", "key", "value")


def test_acl_deluser():
    assert r.acl_setuser(USER, enabled=False, reset=True)
    assert r.acl_deluser(USER) == 1
    users = ["u1", "u2", "u3", "u4"]
    for user in users:
        r.acl_setuser(user, enabled=False, reset=True)
    assert r.acl_deluser(*users) == 4
    assert r.acl_getuser(users[0]) is None


def test_acl_genpass():
    password = r.acl_genpass()
    assert isinstance(password, str) and len(password) == 64
    for bad in ("value", -5, 5555):
        try:
            r.acl_genpass(bad)
            raise AssertionError("acl_genpass(%r) was accepted" % (bad,))
        except exceptions.DataError:
            pass
    # as redis-py's test: a string (redis-py 4.3 does not send the bits; the server's own answer
    # to ACL GENPASS 555 is checked by AclCommandsTest)
    assert isinstance(r.acl_genpass(555), str)


def test_acl_getuser_setuser():
    assert r.acl_setuser(USER, enabled=False, reset=True)
    acl = r.acl_getuser(USER)
    assert acl["categories"] == ["-@all"], acl
    assert acl["commands"] == []
    assert acl["keys"] == []
    assert acl["passwords"] == []
    assert "off" in acl["flags"]
    assert acl["enabled"] is False
    assert r.acl_setuser(
        USER,
        enabled=True,
        reset=True,
        passwords=["+pass1", "+pass2"],
        categories=["+set", "+@hash", "-@geo"],
        commands=["+cf.exists", "+cf.mexists", "-cf.add"],
        keys=["cache:*", "objects:*"],
    )
    acl = r.acl_getuser(USER)
    assert set(acl["categories"]) == {"-@all", "+@set", "+@hash", "-@geo"}, acl
    assert set(acl["commands"]) == {"+cf.exists", "+cf.mexists", "-cf.add"}, acl
    assert acl["enabled"] is True
    assert "on" in acl["flags"]
    assert set(acl["keys"]) == {"~cache:*", "~objects:*"}
    assert len(acl["passwords"]) == 2
    # test reset=False keeps existing ACL and applies new ACL on top
    assert r.acl_setuser(
        USER, enabled=True, reset=True, passwords=["+pass1"], categories=["+@set"],
        commands=["+cf.exists"], keys=["cache:*"],
    )
    assert r.acl_setuser(
        USER, enabled=True, passwords=["+pass2"], categories=["+@hash"],
        commands=["+cf.mexists"], keys=["objects:*"],
    )
    acl = r.acl_getuser(USER)
    assert set(acl["commands"]) == {"+cf.exists", "+cf.mexists"}, acl
    assert set(acl["categories"]) == {"-@all", "+@set", "+@hash"}
    assert set(acl["keys"]) == {"~cache:*", "~objects:*"}
    assert len(acl["passwords"]) == 2
    # removing passwords and hashed passwords
    hashed = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
    assert r.acl_setuser(
        USER, enabled=True, reset=True, passwords=["+pass1", "+pass2"],
        hashed_passwords=["+" + hashed],
    )
    assert len(r.acl_getuser(USER)["passwords"]) == 3
    assert r.acl_setuser(USER, enabled=True, passwords=["-pass2"], hashed_passwords=["-" + hashed])
    assert len(r.acl_getuser(USER)["passwords"]) == 1
    # nopass and reset_keys
    assert r.acl_setuser(USER, enabled=True, reset=True, keys=["cache:*"], nopass=True)
    acl = r.acl_getuser(USER)
    assert "nopass" in acl["flags"] and acl["passwords"] == []
    assert r.acl_setuser(USER, enabled=True, reset_keys=True, keys=["other:*"])
    assert r.acl_getuser(USER)["keys"] == ["~other:*"]


def test_acl_setuser_categories_without_prefix_fails():
    try:
        r.acl_setuser(USER, categories=["list"])
        raise AssertionError("accepted")
    except exceptions.DataError:
        pass


def test_acl_setuser_commands_without_prefix_fails():
    try:
        r.acl_setuser(USER, commands=["get"])
        raise AssertionError("accepted")
    except exceptions.DataError:
        pass


def test_acl_setuser_add_passwords_and_nopass_fails():
    try:
        r.acl_setuser(USER, passwords="+mypass", nopass=True)
        raise AssertionError("accepted")
    except exceptions.DataError:
        pass


def test_acl_setuser_unknown_command_is_refused_by_the_server():
    try:
        r.acl_setuser(USER, commands=["+nosuch"])
        raise AssertionError("accepted")
    except exceptions.ResponseError as e:
        assert "Unknown command or category name in ACL" in str(e), e


def test_acl_list():
    assert r.acl_setuser(USER, enabled=False, reset=True)
    users = r.acl_list()
    assert len(users) == 2, users
    assert "user default on nopass sanitize-payload ~* &* +@all" in users


def test_acl_log():
    r.acl_setuser(
        USER, enabled=True, reset=True, commands=["+cf.add", "+cf.exists", "+select"],
        keys=["cache:*"], nopass=True,
    )
    r.acl_log_reset()
    user_client = client_as(USER)
    # valid operation and key
    assert user_client.cf().add("cache:0", 1)
    assert user_client.cf().exists("cache:0", 1)
    # invalid key
    try:
        user_client.cf().exists("violated_cache:0", 1)
        raise AssertionError("key allowed")
    except exceptions.NoPermissionError:
        pass
    # invalid operation
    try:
        user_client.cf().delete("cache:0", 1)
        raise AssertionError("command allowed")
    except exceptions.NoPermissionError:
        pass
    log = r.acl_log()
    assert isinstance(log, list)
    assert len(log) == 2, log
    assert len(r.acl_log(count=1)) == 1
    assert isinstance(log[0], dict)
    expected = r.acl_log(count=1)[0]
    assert "client-info" in expected.keys()
    assert expected["client-info"]["user"] == USER, expected
    assert expected["reason"] == "command" and expected["object"] == "cf.del", expected
    assert log[1]["reason"] == "key" and log[1]["object"] == "violated_cache:0", log[1]
    assert r.acl_log_reset()
    assert r.acl_log() == []


def test_acl_users():
    users = r.acl_users()
    assert isinstance(users, list)
    assert len(users) > 0


def test_acl_whoami():
    username = r.acl_whoami()
    assert isinstance(username, str)
    assert username == "default"
    r.acl_setuser(USER, enabled=True, reset=True, passwords=["+pass"], commands=["+acl|whoami"])
    assert client_as(USER).acl_whoami() == USER


def test_acl_auth_wrong_password():
    r.acl_setuser(USER, enabled=True, reset=True, passwords=["+pass"], commands=["+@all"])
    try:
        client_as(USER, "wrong").ping()
        raise AssertionError("authenticated")
    except (exceptions.AuthenticationError, exceptions.ResponseError) as e:
        # redis-py 4.3 raises WRONGPASS as a ResponseError, later versions as AuthenticationError
        assert str(e) == "WRONGPASS invalid username-password pair or user is disabled.", e
    assert r.acl_log()[0]["reason"] == "auth"


for test in [
    test_acl_cat_no_category,
    test_acl_cat_with_category,
    test_acl_dryrun,
    test_acl_deluser,
    test_acl_genpass,
    test_acl_getuser_setuser,
    test_acl_setuser_categories_without_prefix_fails,
    test_acl_setuser_commands_without_prefix_fails,
    test_acl_setuser_add_passwords_and_nopass_fails,
    test_acl_setuser_unknown_command_is_refused_by_the_server,
    test_acl_list,
    test_acl_log,
    test_acl_users,
    test_acl_whoami,
    test_acl_auth_wrong_password,
]:
    case(test)
print("FAILED " + " ".join(failed) if failed else "PASS")
