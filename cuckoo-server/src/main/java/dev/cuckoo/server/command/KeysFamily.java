package dev.cuckoo.server.command;

import static dev.cuckoo.server.command.Argument.INTEGER;
import static dev.cuckoo.server.command.Argument.PATTERN;
import static dev.cuckoo.server.command.Argument.STRING;
import static dev.cuckoo.server.command.Argument.UNIX_TIME;
import static dev.cuckoo.server.command.Argument.arg;
import static dev.cuckoo.server.command.Argument.block;
import static dev.cuckoo.server.command.Argument.key;
import static dev.cuckoo.server.command.Argument.oneOf;
import static dev.cuckoo.server.command.Argument.token;
import static dev.cuckoo.server.command.CommandSpec.command;

import java.util.List;

/**
 * The generic keyspace commands: keys, expiry, renames and moves, OBJECT, DUMP, RESTORE (and
 * RESTORE-ASKING) and MIGRATE. Flags, categories and key specs as Redis 8 reports them; docs from
 * Redis's command JSON.
 */
final class KeysFamily {
  private KeysFamily() {}

  /**
   * Returns the entries, bound to handlers built from {@code parts}.
   *
   * @param parts what the handlers are built from
   */
  static List<CommandSpec.Builder> entries(Families.Parts parts) {
    ServerContext context = parts.context();
    DatabaseCommands database = new DatabaseCommands(context);
    ExpiryCommands expiry = new ExpiryCommands(context);
    MoveCommands moves =
        new MoveCommands(context, new ConnectionCommands(context, parts.commands()));
    KeyspaceCommands keys = new KeyspaceCommands(context.keyspace());
    DumpCommands dump = new DumpCommands(context);
    MigrateCommands migrate = new MigrateCommands(context, parts.writes());
    return List.of(
        command("type")
            .arity(2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.one(1, "RO"))
            .summary("Determines the type of value stored at a key.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .arguments(key("key", 0))
            .handler(database::type),
        command("del")
            .arity(-2)
            .flags("write")
            .categories("keyspace", "write", "slow")
            .keys(KeySpec.range(1, -1, 1, "RM", "delete"))
            .writes(Writes.KEYS)
            .summary("Deletes one or more keys.")
            .group("generic")
            .since("1.0.0")
            .complexity(
                "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).")
            .tips("request_policy:multi_shard", "response_policy:agg_sum")
            .arguments(key("key", 0).multiple())
            .handler(database::del),
        command("exists")
            .arity(-2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.range(1, -1, 1, "RO"))
            .summary("Determines whether one or more keys exist.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(N) where N is the number of keys to check.")
            .tips("request_policy:multi_shard", "response_policy:agg_sum")
            .history("3.0.3", "Accepts multiple `key` arguments.")
            .arguments(key("key", 0).multiple())
            .handler(database::exists),
        command("keys")
            .arity(2)
            .flags("readonly")
            .categories("keyspace", "read", "slow", "dangerous")
            .summary("Returns all key names that match a pattern.")
            .group("generic")
            .since("1.0.0")
            .complexity(
                "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.")
            .tips("request_policy:all_shards", "nondeterministic_output_order")
            .arguments(arg("pattern", PATTERN))
            .handler(database::keys),
        command("scan")
            .arity(-2)
            .flags("readonly")
            .categories("keyspace", "read", "slow")
            .summary("Iterates over the key names in the database.")
            .group("generic")
            .since("2.8.0")
            .complexity(
                "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.")
            .tips("nondeterministic_output", "request_policy:special", "response_policy:special")
            .history("6.0.0", "Added the `TYPE` subcommand.")
            .arguments(
                arg("cursor", INTEGER),
                arg("pattern", PATTERN).token("MATCH").optional(),
                arg("count", INTEGER).token("COUNT").optional(),
                arg("type", STRING).token("TYPE").since("6.0.0").optional())
            .handler(database::scan),
        command("expire")
            .arity(-3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "update"))
            .writes(Writes.KEYS)
            .summary("Sets the expiration time of a key in seconds.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.")
            .arguments(
                key("key", 0),
                arg("seconds", INTEGER),
                oneOf(
                        "condition",
                        token("nx", "NX"),
                        token("xx", "XX"),
                        token("gt", "GT"),
                        token("lt", "LT"))
                    .since("7.0.0")
                    .optional())
            .handler(expiry::expire),
        command("pexpire")
            .arity(-3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "update"))
            .writes(Writes.KEYS)
            .summary("Sets the expiration time of a key in milliseconds.")
            .group("generic")
            .since("2.6.0")
            .complexity("O(1)")
            .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.")
            .arguments(
                key("key", 0),
                arg("milliseconds", INTEGER),
                oneOf(
                        "condition",
                        token("nx", "NX"),
                        token("xx", "XX"),
                        token("gt", "GT"),
                        token("lt", "LT"))
                    .since("7.0.0")
                    .optional())
            .handler(expiry::pexpire),
        command("expireat")
            .arity(-3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "update"))
            .writes(Writes.KEYS)
            .summary("Sets the expiration time of a key to a Unix timestamp.")
            .group("generic")
            .since("1.2.0")
            .complexity("O(1)")
            .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.")
            .arguments(
                key("key", 0),
                arg("unix-time-seconds", UNIX_TIME),
                oneOf(
                        "condition",
                        token("nx", "NX"),
                        token("xx", "XX"),
                        token("gt", "GT"),
                        token("lt", "LT"))
                    .since("7.0.0")
                    .optional())
            .handler(expiry::expireAt),
        command("pexpireat")
            .arity(-3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "update"))
            .writes(Writes.KEYS)
            .summary("Sets the expiration time of a key to a Unix milliseconds timestamp.")
            .group("generic")
            .since("2.6.0")
            .complexity("O(1)")
            .history("7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.")
            .arguments(
                key("key", 0),
                arg("unix-time-milliseconds", UNIX_TIME),
                oneOf(
                        "condition",
                        token("nx", "NX"),
                        token("xx", "XX"),
                        token("gt", "GT"),
                        token("lt", "LT"))
                    .since("7.0.0")
                    .optional())
            .handler(expiry::pexpireAt),
        command("persist")
            .arity(2)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "update"))
            .writes(Writes.KEYS)
            .summary("Removes the expiration time of a key.")
            .group("generic")
            .since("2.2.0")
            .complexity("O(1)")
            .arguments(key("key", 0))
            .handler(expiry::persist),
        command("ttl")
            .arity(2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.one(1, "RO", "access"))
            .summary("Returns the expiration time in seconds of a key.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("nondeterministic_output")
            .history("2.8.0", "Added the -2 reply.")
            .arguments(key("key", 0))
            .handler(expiry::ttl),
        command("pttl")
            .arity(2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.one(1, "RO", "access"))
            .summary("Returns the expiration time in milliseconds of a key.")
            .group("generic")
            .since("2.6.0")
            .complexity("O(1)")
            .tips("nondeterministic_output")
            .history("2.8.0", "Added the -2 reply.")
            .arguments(key("key", 0))
            .handler(expiry::pttl),
        command("expiretime")
            .arity(2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.one(1, "RO", "access"))
            .summary("Returns the expiration time of a key as a Unix timestamp.")
            .group("generic")
            .since("7.0.0")
            .complexity("O(1)")
            .arguments(key("key", 0))
            .handler(expiry::expireTime),
        command("pexpiretime")
            .arity(2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.one(1, "RO", "access"))
            .summary("Returns the expiration time of a key as a Unix milliseconds timestamp.")
            .group("generic")
            .since("7.0.0")
            .complexity("O(1)")
            .arguments(key("key", 0))
            .handler(expiry::pexpireTime),
        command("rename")
            .arity(3)
            .flags("write")
            .categories("keyspace", "write", "slow")
            .keys(KeySpec.one(1, "RW", "access", "delete"), KeySpec.one(2, "OW", "update"))
            .writes(Writes.MOVES_KEYS)
            .summary("Renames a key and overwrites the destination.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .arguments(key("key", 0), key("newkey", 1))
            .handler(moves::rename),
        command("renamenx")
            .arity(3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "access", "delete"), KeySpec.one(2, "OW", "insert"))
            .writes(Writes.MOVES_KEYS)
            .summary("Renames a key only when the target key name doesn't exist.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .history(
                "3.2.0",
                "The command no longer returns an error when source and destination names are the same.")
            .arguments(key("key", 0), key("newkey", 1))
            .handler(moves::renameNx),
        command("move")
            .arity(3)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.one(1, "RW", "access", "update"))
            .writes(Writes.MOVES_TO_DATABASE)
            .summary("Moves a key to another database.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .arguments(key("key", 0), arg("db", INTEGER))
            .handler(moves::move),
        command("copy")
            .arity(-3)
            .flags("write", "denyoom")
            .categories("keyspace", "write", "slow")
            .keys(KeySpec.one(1, "RO", "access"), KeySpec.one(2, "OW", "update"))
            .writes(Writes.KEYS_TO_DATABASE_OPTION)
            .summary("Copies the value of a key to a new key.")
            .group("generic")
            .since("6.2.0")
            .complexity(
                "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.")
            .arguments(
                key("source", 0),
                key("destination", 1),
                arg("destination-db", INTEGER).token("DB").optional(),
                token("replace", "REPLACE").optional())
            .handler(moves::copy),
        command("unlink")
            .arity(-2)
            .flags("write", "fast")
            .categories("keyspace", "write", "fast")
            .keys(KeySpec.range(1, -1, 1, "RM", "delete"))
            .writes(Writes.KEYS)
            .summary("Asynchronously deletes one or more keys.")
            .group("generic")
            .since("4.0.0")
            .complexity(
                "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.")
            .tips("request_policy:multi_shard", "response_policy:agg_sum")
            .arguments(key("key", 0).multiple())
            .handler(database::del),
        command("randomkey")
            .arity(1)
            .flags("readonly")
            .categories("keyspace", "read", "slow")
            .summary("Returns a random key name from the database.")
            .group("generic")
            .since("1.0.0")
            .complexity("O(1)")
            .tips("request_policy:all_shards", "response_policy:special", "nondeterministic_output")
            .handler(keys::randomKey),
        command("touch")
            .arity(-2)
            .flags("readonly", "fast")
            .categories("keyspace", "read", "fast")
            .keys(KeySpec.range(1, -1, 1, "RO"))
            .summary(
                "Returns the number of existing keys out of those specified after updating the time they were last accessed.")
            .group("generic")
            .since("3.2.1")
            .complexity("O(N) where N is the number of keys that will be touched.")
            .tips("request_policy:multi_shard", "response_policy:agg_sum")
            .arguments(key("key", 0).multiple())
            .handler(keys::touch),
        command("object")
            .arity(-2)
            .categories("slow")
            .summary("A container for object introspection commands.")
            .group("generic")
            .since("2.2.3")
            .complexity("Depends on subcommand.")
            .subcommands(
                command("object|encoding")
                    .arity(3)
                    .flags("readonly")
                    .categories("keyspace", "read", "slow")
                    .keys(KeySpec.one(2, "RO"))
                    .summary("Returns the internal encoding of a Redis object.")
                    .group("generic")
                    .since("2.2.3")
                    .complexity("O(1)")
                    .tips("nondeterministic_output")
                    .arguments(key("key", 0))
                    .handler(keys::objectEncoding),
                command("object|freq")
                    .arity(3)
                    .flags("readonly")
                    .categories("keyspace", "read", "slow")
                    .keys(KeySpec.one(2, "RO"))
                    .summary("Returns the logarithmic access frequency counter of a Redis object.")
                    .group("generic")
                    .since("4.0.0")
                    .complexity("O(1)")
                    .tips("nondeterministic_output")
                    .arguments(key("key", 0))
                    .handler(keys::objectFreq),
                command("object|refcount")
                    .arity(3)
                    .flags("readonly")
                    .categories("keyspace", "read", "slow")
                    .keys(KeySpec.one(2, "RO"))
                    .summary("Returns the reference count of a value of a key.")
                    .group("generic")
                    .since("2.2.3")
                    .complexity("O(1)")
                    .tips("nondeterministic_output")
                    .arguments(key("key", 0))
                    .handler(keys::objectRefcount),
                command("object|idletime")
                    .arity(3)
                    .flags("readonly")
                    .categories("keyspace", "read", "slow")
                    .keys(KeySpec.one(2, "RO", "access"))
                    .summary("Returns the time since the last access to a Redis object.")
                    .group("generic")
                    .since("2.2.3")
                    .complexity("O(1)")
                    .tips("nondeterministic_output")
                    .arguments(key("key", 0))
                    .handler(keys::objectIdleTime),
                HelpCommands.entry("object", "generic", "6.2.0", HelpCommands::object)
                    .categories("keyspace", "slow")),
        command("dump")
            .arity(2)
            .flags("readonly")
            .categories("keyspace", "read", "slow")
            .keys(KeySpec.one(1, "RO", "access"))
            .summary("Returns a serialized representation of the value stored at a key.")
            .group("generic")
            .since("2.6.0")
            .complexity(
                "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).")
            .tips("nondeterministic_output")
            .arguments(key("key", 0))
            .handler(dump::dump),
        restore("restore", dump)
            .flags("write", "denyoom")
            .summary("Creates a key from the serialized representation of a value.")
            .group("generic"),
        restore("restore-asking", dump)
            .flags("write", "denyoom", "asking")
            .summary("An internal command for migrating keys in a cluster.")
            .group("server")
            .docFlags("syscmd"),
        command("migrate")
            .arity(-6)
            .flags("write")
            .categories("keyspace", "write", "slow", "dangerous")
            .keys(
                MigrateCommands::keyPositions,
                KeySpec.one(3, "RW", "access", "delete"),
                KeySpec.afterKeyword("KEYS", -2, -1, 1, "RW", "access", "delete", "incomplete"))
            .writes(Writes.KEYS)
            .summary("Atomically transfers a key from one Redis instance to another.")
            .group("generic")
            .since("2.6.0")
            .complexity(
                "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.")
            .tips("nondeterministic_output")
            .history(
                "3.0.0",
                "Added the `COPY` and `REPLACE` options.",
                "3.0.6",
                "Added the `KEYS` option.",
                "4.0.7",
                "Added the `AUTH` option.",
                "6.0.0",
                "Added the `AUTH2` option.")
            .arguments(
                arg("host", STRING),
                arg("port", INTEGER),
                oneOf("key-selector", key("key", 0), token("empty-string", "\"\"")),
                arg("destination-db", INTEGER),
                arg("timeout", INTEGER),
                token("copy", "COPY").since("3.0.0").optional(),
                token("replace", "REPLACE").since("3.0.0").optional(),
                oneOf(
                        "authentication",
                        arg("auth", STRING).token("AUTH").display("password").since("4.0.7"),
                        block("auth2", arg("username", STRING), arg("password", STRING))
                            .token("AUTH2")
                            .since("6.0.0"))
                    .optional(),
                key("keys", 1).token("KEYS").display("key").since("3.0.6").optional().multiple())
            .handler(migrate::migrate));
  }

  /**
   * Returns RESTORE's entry under {@code name} (RESTORE, or RESTORE-ASKING, which a cluster node
   * accepts for a slot it imports): the same arguments and handler; the caller adds the flags,
   * summary and group that differ.
   */
  private static CommandSpec.Builder restore(String name, DumpCommands dump) {
    return command(name)
        .arity(-4)
        .categories("keyspace", "write", "slow", "dangerous")
        .keys(KeySpec.one(1, "OW", "update"))
        .writes(Writes.KEYS)
        .since(name.equals("restore") ? "2.6.0" : "3.0.0")
        .complexity(
            "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).")
        .history(
            "3.0.0",
            "Added the `REPLACE` modifier.",
            "5.0.0",
            "Added the `ABSTTL` modifier.",
            "5.0.0",
            "Added the `IDLETIME` and `FREQ` options.")
        .arguments(
            key("key", 0),
            arg("ttl", INTEGER),
            arg("serialized-value", STRING),
            token("replace", "REPLACE").since("3.0.0").optional(),
            token("absttl", "ABSTTL").since("5.0.0").optional(),
            arg("seconds", INTEGER).token("IDLETIME").since("5.0.0").optional(),
            arg("frequency", INTEGER).token("FREQ").since("5.0.0").optional())
        .handler(dump::restore);
  }
}
